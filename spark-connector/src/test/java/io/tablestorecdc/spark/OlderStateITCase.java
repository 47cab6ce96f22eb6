package io.tablestorecdc.spark;

import static io.tablestorecdc.spark.CdcTestBed.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.spark.CdcTestBed.BatchSink;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A query restored from a copy of an older checkpoint location (docs/exactly-once.md, "Restoring
 * from older state"): after the copy was taken the query went on across a split, a merge and a
 * split, and the tunnel server finished the channels of the first three generations. Their changes
 * can never be read again: by default the restored query fails before delivering anything and names
 * them; with {@code on.server.ahead=skip} it delivers exactly what the server can still serve,
 * once. When nothing was finished since, the restore re-reads exactly.
 */
class OlderStateITCase {

    static final Duration TIMEOUT = Duration.ofSeconds(60);
    static final StructType ATTRIBUTES =
            new StructType().add("qty", DataTypes.LongType).add("name", DataTypes.StringType);
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
    void aRestoreAcrossFinishedChannelsFailsNamingThemOrWithSkipReadsWhatIsLeftOnce()
            throws Exception {
        String table = bed.newTable();
        String tunnel = table + "_tunnel";
        Path checkpoint = CdcTestBed.checkpointDir();
        bed.put(table, "a", 1, "gen0");

        BatchSink first = new BatchSink();
        StreamingQuery query = bed.start(source(table, tunnel, "fail"), checkpoint, first);
        try {
            await(query, "generation 0", TIMEOUT, () -> first.count() >= 1);
            bed.awaitTriggers(query, 2, TIMEOUT);
        } finally {
            query.stop();
        }
        Path older = copy(checkpoint);

        query = bed.start(source(table, tunnel, "fail"), checkpoint, first);
        List<String> generation3;
        try {
            bed.emulator.tunnels().split(table, CdcTestBed.key("m"));
            bed.put(table, "a", 2, "gen1");
            bed.put(table, "x", 2, "gen1");
            await(query, "generation 1", TIMEOUT, () -> first.count() >= 3);
            bed.emulator.tunnels().merge(table, CdcTestBed.key("m"));
            bed.put(table, "a", 3, "gen2");
            await(query, "generation 2", TIMEOUT, () -> first.count() >= 4);
            generation3 = bed.emulator.tunnels().split(table, CdcTestBed.key("m"));
            bed.put(table, "a", 4, "gen3");
            bed.put(table, "x", 4, "gen3");
            await(query, "generation 3", TIMEOUT, () -> first.count() >= 6);
            bed.awaitTriggers(query, 2, TIMEOUT);
        } finally {
            query.stop();
        }
        assertThat(SplitMergeITCase.qtysOf(first, "a")).containsExactly(1L, 2L, 3L, 4L);

        restore(older, checkpoint);
        BatchSink failing = new BatchSink();
        StreamingQuery refused = bed.start(source(table, tunnel, "fail"), checkpoint, failing);
        assertThatThrownBy(() -> refused.awaitTermination(TIMEOUT.toMillis()))
                .hasStackTraceContaining("restored from state older than the tunnel server's")
                .hasStackTraceContaining("checkpoint location file:" + checkpoint)
                .hasStackTraceContaining("p-0: every change after position")
                .hasStackTraceContaining("restore from the newest checkpoint location")
                .hasStackTraceContaining("on.server.ahead=skip");
        assertThat(failing.count()).as("nothing delivered").isZero();

        BatchSink skipping = new BatchSink();
        StreamingQuery skipped = bed.start(source(table, tunnel, "skip"), checkpoint, skipping);
        try {
            await(skipped, "generation 3 again", TIMEOUT, () -> skipping.count() >= 2);
            bed.awaitTriggers(skipped, 3, TIMEOUT); // a duplicate would arrive in these batches
            assertThat(skipped.lastProgress().sources()[0].metrics())
                    .containsEntry("channelsSkippedOnServerAhead", "4");
        } finally {
            skipped.stop();
        }
        assertThat(SplitMergeITCase.qtysOf(skipping, "a")).containsExactly(4L);
        assertThat(SplitMergeITCase.qtysOf(skipping, "x")).containsExactly(4L);
        assertThat(SplitMergeITCase.batchRangeByChannel(skipping).keySet())
                .containsExactlyInAnyOrderElementsOf(generation3);
    }

    @Test
    void aRestoreWithNothingFinishedSinceReadsTheLaterChangesAgainExactly() throws Exception {
        String table = bed.newTable();
        String tunnel = table + "_tunnel";
        Path checkpoint = CdcTestBed.checkpointDir();
        bed.put(table, "a", 1, "gen0");

        BatchSink first = new BatchSink();
        StreamingQuery query = bed.start(source(table, tunnel, "fail"), checkpoint, first);
        try {
            await(query, "the first change", TIMEOUT, () -> first.count() >= 1);
            bed.awaitTriggers(query, 2, TIMEOUT);
            Path older = copy(checkpoint);
            bed.put(table, "a", 2, "later");
            bed.put(table, "b", 2, "later");
            await(query, "the later changes", TIMEOUT, () -> first.count() >= 3);
            bed.awaitTriggers(query, 2, TIMEOUT);
            query.stop();
            restore(older, checkpoint);
        } finally {
            query.stop();
        }

        BatchSink again = new BatchSink();
        StreamingQuery restored = bed.start(source(table, tunnel, "fail"), checkpoint, again);
        try {
            await(restored, "the later changes again", TIMEOUT, () -> again.count() >= 2);
            bed.awaitTriggers(restored, 3, TIMEOUT);
        } finally {
            restored.stop();
        }
        assertThat(SplitMergeITCase.qtysOf(again, "a")).containsExactly(2L);
        assertThat(SplitMergeITCase.qtysOf(again, "b")).containsExactly(2L);
        assertThat(again.count()).isEqualTo(2);
    }

    private static Dataset<Row> source(String table, String tunnel, String onServerAhead) {
        return bed.reader(table, tunnel)
                .option("on.server.ahead", onServerAhead)
                .schema(ATTRIBUTES)
                .load();
    }

    /** A copy of a checkpoint location, as a backup would hold it. */
    private static Path copy(Path checkpoint) {
        Path copy = CdcTestBed.checkpointDir();
        copyTree(checkpoint, copy);
        return copy;
    }

    /** Puts {@code older} back in place of {@code checkpoint}, as restoring a backup does. */
    private static void restore(Path older, Path checkpoint) {
        try (Stream<Path> walk = Files.walk(checkpoint)) {
            walk.sorted(Comparator.reverseOrder())
                    .filter(p -> !p.equals(checkpoint))
                    .forEach(OlderStateITCase::delete);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        copyTree(older, checkpoint);
    }

    private static void copyTree(Path from, Path to) {
        try (Stream<Path> walk = Files.walk(from)) {
            for (Path source : (Iterable<Path>) walk::iterator) {
                Path target = to.resolve(from.relativize(source).toString());
                if (Files.isDirectory(source)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(source, target);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void delete(Path path) {
        try {
            Files.delete(path);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
