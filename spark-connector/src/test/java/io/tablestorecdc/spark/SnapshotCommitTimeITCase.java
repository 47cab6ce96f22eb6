package io.tablestorecdc.spark;

import static io.tablestorecdc.spark.CdcTestBed.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.alicloud.openservices.tablestore.model.tunnel.TunnelType;
import io.tablestorecdc.spark.CdcTestBed.BatchSink;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code _commit_ts} of a BaseAndStream tunnel (docs/spark.md, output schema): null exactly for the
 * rows of the base snapshot, whose {@code _seq} is (0, 0, 0); the commit time for every stream
 * change.
 */
class SnapshotCommitTimeITCase {

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
    void snapshotRowsHaveNoCommitTimeAndStreamChangesHaveTheirs() throws Exception {
        String table = bed.newTable();
        for (int i = 0; i < 3; i++) {
            bed.put(table, "base" + i, i, "snapshot");
        }
        String tunnel = table + "_bs";
        bed.createTunnel(table, tunnel, TunnelType.BaseAndStream);
        Instant streamStart = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        for (int i = 0; i < 2; i++) {
            bed.put(table, "stream" + i, i, "change");
        }
        Instant streamEnd = Instant.now();
        BatchSink sink = new BatchSink();

        StreamingQuery query =
                bed.start(bed.baseReader(table, tunnel).load(), CdcTestBed.checkpointDir(), sink);
        try {
            await(query, "5 rows", Duration.ofSeconds(45), () -> sink.count() >= 5);
        } finally {
            query.stop();
        }

        assertThat(sink.rows()).hasSize(5);
        for (Row r : sink.rows()) {
            Row seq = r.getStruct(r.fieldIndex("_seq"));
            int commitTs = r.fieldIndex("_commit_ts");
            if (r.getString(r.fieldIndex("_channel")).startsWith("BaseData_")) {
                assertThat(r.isNullAt(commitTs)).as("commit time of %s", r).isTrue();
                assertThat(seq.getInt(0) + seq.getLong(1) + seq.getInt(2)).isZero();
            } else {
                Instant committed = r.<Timestamp>getAs(commitTs).toInstant();
                assertThat(committed).isBetween(streamStart, streamEnd);
                assertThat(ChronoUnit.MICROS.between(Instant.EPOCH, committed))
                        .isEqualTo(seq.getLong(1));
            }
        }
        assertThat(sink.rows().stream().filter(r -> r.isNullAt(r.fieldIndex("_commit_ts"))))
                .hasSize(3);
    }
}
