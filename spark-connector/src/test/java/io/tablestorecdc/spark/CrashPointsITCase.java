package io.tablestorecdc.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablestorecdc.checkpoint.meta.LoggedBatch;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A driver in a child JVM killed with SIGKILL at each named point of a batch — after the source
 * planned it but before Spark's offset log, after its read tasks filled the meta table, after the
 * sink wrote it but before the commit log — in turn, 10 kills by default (system property {@code
 * crash.points.kills}), with new writes between the kills, and restarted on the same checkpoint
 * every time: the sink ends up with exactly the changes, none lost, none doubled, and every batch
 * re-run after a kill delivered the same rows as before it.
 */
class CrashPointsITCase {

    /** Kills in all, taking the points in turn: 10 gives each point at least 3. */
    static final int KILLS = Integer.getInteger("crash.points.kills", 10);

    static final int ROWS_PER_RUN = 5;
    static final List<CrashPoint> POINTS =
            List.of(
                    CrashPoint.BEFORE_OFFSET_LOG,
                    CrashPoint.AFTER_FILLS,
                    CrashPoint.AFTER_SINK_COMMIT);

    static CdcTestBed bed;

    @BeforeAll
    static void start() {
        bed = new CdcTestBed();
    }

    @AfterAll
    static void stop() {
        bed.close();
    }

    @Test
    void killsAtEveryNamedPointLeaveExactlyTheChangesInTheSink() throws Exception {
        String table = bed.newTable();
        // Nine partitions of which the rows fill one: most batches write a delta snapshot, every
        // third a full one (the query's meta.full.snapshot.every), and purges cross the bases.
        for (String at : List.of("b", "d", "f", "h", "j", "l", "n", "p")) {
            bed.emulator.tunnels().split(table, CdcTestBed.key(at));
        }
        String tunnel = table + "_tunnel";
        Path out = Files.createTempDirectory("crash-points-out");
        Path checkpoint = Files.createTempDirectory("crash-points-ckpt");
        List<String> expected = new ArrayList<>();

        Map<CrashPoint, Integer> kills = new EnumMap<>(CrashPoint.class);
        for (int run = 0; run < KILLS; run++) {
            CrashPoint point = POINTS.get(run % POINTS.size());
            expected.addAll(writeRows(table, run));
            Process child = launch(table, tunnel, out, checkpoint, point, "continuous", run);
            assertThat(child.waitFor(3, TimeUnit.MINUTES))
                    .as("run %d reaches %s; see %s", run, point, log(out, run))
                    .isTrue();
            assertThat(child.exitValue())
                    .as("run %d killed at %s; see %s", run, point, log(out, run))
                    .isEqualTo(CrashPoint.KILLED);
            assertThat(Files.readString(log(out, run))).contains("Crash point reached");
            kills.merge(point, 1, Integer::sum);
        }
        int run = KILLS;
        expected.addAll(writeRows(table, run));
        Process last =
                launch(table, tunnel, out, checkpoint, CrashPoint.NONE, "available-now", run);
        assertThat(last.waitFor(3, TimeUnit.MINUTES)).isTrue();
        assertThat(last.exitValue()).as("see %s", log(out, run)).isZero();

        assertThat(files(out, "mismatch-")).as("re-run batches that differed").isEmpty();
        assertThat(files(out, "replayed-"))
                .as("batches re-run after a kill past the sink, compared")
                .hasSize(kills.get(CrashPoint.AFTER_SINK_COMMIT));
        assertThat(files(out, "checked-fills-"))
                .as("batches re-run after a kill past the fills, compared")
                .hasSize(kills.get(CrashPoint.AFTER_FILLS));
        assertThat(sinkIds(out)).containsExactlyInAnyOrderElementsOf(expected);
        // Of any three batches in a row one is a delta (every third is full), and retention keeps
        // its base: the kills above crossed both kinds of snapshot.
        List<LoggedBatch> log =
                bed.withMetaTable(
                        Clock.systemUTC(),
                        meta -> meta.tunnel(bed.tunnelId(table, tunnel)).batchLog());
        assertThat(log).anyMatch(b -> b.base().isPresent());
        for (LoggedBatch delta : log.stream().filter(b -> b.base().isPresent()).toList()) {
            assertThat(log).extracting(LoggedBatch::token).contains(delta.base().get());
        }
    }

    private static List<String> writeRows(String table, int run) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < ROWS_PER_RUN; i++) {
            String id = String.format("r%02d-%d", run, i);
            bed.put(table, id, i, "n");
            ids.add(id);
        }
        return ids;
    }

    /**
     * The id of every row in every batch file: each change once, if nothing was lost or doubled.
     */
    private static List<String> sinkIds(Path out) throws IOException {
        List<String> ids = new ArrayList<>();
        for (Path batch : files(out, "batch-")) {
            Files.readAllLines(batch)
                    .forEach(line -> ids.add(line.substring(0, line.indexOf('|'))));
        }
        return ids;
    }

    private static List<Path> files(Path dir, String prefix) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().startsWith(prefix))
                    .sorted()
                    .toList();
        }
    }

    private static Path log(Path out, int run) {
        return out.resolveSibling(out.getFileName() + "-run-" + run + ".log");
    }

    private static Process launch(
            String table,
            String tunnel,
            Path out,
            Path checkpoint,
            CrashPoint point,
            String trigger,
            int run)
            throws IOException {
        List<String> cmd = CdcTestBed.childJvm(CrashPointQuery.class);
        cmd.addAll(
                List.of(
                        bed.emulator.endpoint(),
                        bed.emulator.instanceName(),
                        bed.emulator.accessKeyId(),
                        CdcTestBed.SECRET,
                        table,
                        tunnel,
                        out.toString(),
                        checkpoint.toString(),
                        point.name(),
                        trigger,
                        // Small batches while crashing; the last run drains the rest at once.
                        point == CrashPoint.NONE ? "1000" : "5"));
        File log = log(out, run).toFile();
        return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log).start();
    }
}
