package io.tablestorecdc.e2e.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class BenchSettingsTest {

    @Test
    void defaultsRunEveryPartAtFullSize() {
        BenchSettings s = BenchSettings.parse();

        assertThat(s.parts()).containsExactlyElementsOf(BenchSettings.ALL_PARTS);
        assertThat(s.rows()).isEqualTo(200_000);
        assertThat(s.channels()).containsExactly(1, 16, 256, 1024);
        assertThat(s.idleTriggers()).isEqualTo(200);
    }

    @Test
    void keyValueArgumentsSelectPartsInTheirFixedOrder() {
        BenchSettings s =
                BenchSettings.parse("parts=memory,overhead", "channels=1,16", "idleTriggers=20");

        assertThat(s.parts()).containsExactly("overhead", "memory");
        assertThat(s.runs("throughput")).isFalse();
        assertThat(s.channels()).containsExactly(1, 16);
        assertThat(s.idleTriggers()).isEqualTo(20);
    }

    @Test
    void theOverheadPartCanMeasureMoreBatchesAndOnlyTheSparkDriver() {
        BenchSettings defaults = BenchSettings.parse();
        assertThat(defaults.overheadBatches()).isEqualTo(4);
        assertThat(defaults.overheadSparkOnly()).isFalse();

        BenchSettings s = BenchSettings.parse("overheadBatches=12", "overheadScope=Spark");

        assertThat(s.overheadBatches()).isEqualTo(12);
        assertThat(s.overheadSparkOnly()).isTrue();
        assertThatThrownBy(() -> BenchSettings.parse("overheadBatches=1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("overheadBatches must be at least 2");
        assertThatThrownBy(() -> BenchSettings.parse("overheadScope=flink"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("choose from [all, spark]");
    }

    @Test
    void positionalArgumentsKeepTheirOldMeaning() {
        BenchSettings s = BenchSettings.parse("50000", "1", "4");

        assertThat(List.of(s.rows(), s.runs(), s.rawThreads())).containsExactly(50_000, 1, 4);
    }

    @Test
    void unknownKeysAndPartsAreRejectedWithTheChoices() {
        assertThatThrownBy(() -> BenchSettings.parse("rowz=5"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("rowz=5")
                .hasMessageContaining("rows");
        assertThatThrownBy(() -> BenchSettings.parse("parts=speed"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'speed'")
                .hasMessageContaining("latency");
    }

    @Test
    void emulatorIsEmbeddedUnlessAChildProcessIsAskedFor() {
        assertThat(BenchSettings.parse().emulator()).isEqualTo("embedded");
        assertThat(BenchSettings.parse().inChildProcess()).isFalse();

        BenchSettings s = BenchSettings.parse("parts=throughput,ceilings", "emulator=process");

        assertThat(s.emulator()).isEqualTo("process");
        assertThat(s.inChildProcess()).isTrue();
        assertThat(BenchSettings.parse("parts=latency", "emulator=Process").inChildProcess())
                .isTrue();
    }

    @Test
    void unknownEmulatorModeIsRejectedWithTheChoices() {
        assertThatThrownBy(() -> BenchSettings.parse("emulator=remote"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'remote'")
                .hasMessageContaining("embedded")
                .hasMessageContaining("process");
    }

    @Test
    void partsThatReadEmulatorInternalsRefuseAChildProcess() {
        assertThatThrownBy(() -> BenchSettings.parse("parts=throughput,memory", "emulator=process"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("[memory]")
                .hasMessageContaining("emulator=embedded")
                .hasMessageContaining("parts=throughput,ceilings,overhead,latency");
        // The default parts include memory; overhead reads a child's counters over HTTP.
        assertThatThrownBy(() -> BenchSettings.parse("emulator=process"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("[memory]");
        assertThat(BenchSettings.parse("parts=overhead", "emulator=process").inChildProcess())
                .isTrue();
    }

    @Test
    void theChangelogPartRunsBeforeTheTablesPartWithItsSizesAndInAChildProcess() {
        BenchSettings defaults = BenchSettings.parse();
        assertThat(defaults.parts()).endsWith("changelog", "tables");
        assertThat(List.of(defaults.changelogKeys(), defaults.changelogUpdates()))
                .containsExactly(20_000, 4);

        BenchSettings s =
                BenchSettings.parse(
                        "parts=changelog,sink",
                        "changelogKeys=4000",
                        "changelogUpdates=2",
                        "emulator=process");

        assertThat(s.parts()).containsExactly("sink", "changelog");
        assertThat(List.of(s.changelogKeys(), s.changelogUpdates())).containsExactly(4000, 2);
        assertThat(s.inChildProcess()).isTrue();
        assertThat(List.of(defaults.tables(), defaults.tablePartitions())).containsExactly(100, 4);
        assertThatThrownBy(() -> BenchSettings.parse("tables=1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 2 tables");
        assertThatThrownBy(() -> BenchSettings.parse("changelogUpdates=0"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("changelogUpdates of at least 1");
        assertThatThrownBy(() -> BenchSettings.parse("changelogKeys=3"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("changelogKeys of at least " + ChangelogPart.PARTITIONS);
    }
}
