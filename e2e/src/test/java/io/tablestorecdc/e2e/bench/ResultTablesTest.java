package io.tablestorecdc.e2e.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ResultTablesTest {

    /** A run of the throughput part with raw and spark, given the rounds' figures. */
    private static String run(String sparkWhole, String rawCpu, String sparkCpu) {
        return "{\"date\": \"x\", \"emulator\": \"process\", \"rows\": 600000, \"runs\": 3,"
                + " \"throughput\": {"
                + " \"raw\": {\"runsConsumerMicrosPerRecord\": ["
                + rawCpu
                + "]},"
                + " \"spark\": {\"runsRatioToRawOfTheRound\": ["
                + sparkWhole
                + "], \"runsConsumerMicrosPerRecord\": ["
                + sparkCpu
                + "]}}}";
    }

    @Test
    void poolsTheRoundsOfEveryRunAndPairsCpuByRound() {
        String table =
                ResultTables.render(
                        "benchmark-throughput",
                        List.of(
                                ResultTables.parse(run("0.5, 0.9, 0.7", "2, 2, 4", "3, 2, 4")),
                                ResultTables.parse(run("0.8, 0.6, 1.2", "1, 2, 2", "2, 3, 2"))));

        assertThat(table).startsWith("600000 rows, 6 rounds in 2 runs, `emulator=process`;");
        // whole: median of the six rounds (the upper middle), min-max; steady and window absent;
        // CPU: median of the six runs' figures, and each over raw's of its round.
        assertThat(table)
                .contains(
                        "| `spark` | 0.80 (0.50-1.20) | - | - | - | 3.00 (whole) | 1.50 (1.00-2.00) |");
        assertThat(table).doesNotContain("`raw-4t`").doesNotContain("`flink`");
    }

    @Test
    void namesTheSectionsAResultsFileHolds() {
        assertThat(ResultTables.sections(ResultTables.parse(run("1", "1", "1"))))
                .containsExactly("benchmark-throughput");
        assertThat(ResultTables.sections(ResultTables.parse("{\"tables\": {}}")))
                .containsExactly("benchmark-tables");
    }
}
