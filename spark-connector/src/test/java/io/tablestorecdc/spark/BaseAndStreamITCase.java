package io.tablestorecdc.spark;

import static io.tablestorecdc.spark.CdcTestBed.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.alicloud.openservices.tablestore.model.tunnel.TunnelType;
import io.tablestorecdc.spark.CdcTestBed.BatchSink;
import java.time.Duration;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A BaseAndStream tunnel: all base data first, then the stream (issue item 7). */
class BaseAndStreamITCase {

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
    void baseDataIsReadCompletelyBeforeAnyStreamRecord() throws Exception {
        String table = bed.newTable();
        for (int i = 0; i < 12; i++) {
            bed.put(table, "base" + i, i, "snapshot");
        }
        String tunnel = table + "_bs";
        bed.createTunnel(table, tunnel, TunnelType.BaseAndStream);
        for (int i = 0; i < 4; i++) {
            bed.put(table, "stream" + i, i, "change");
        }
        BatchSink sink = new BatchSink();

        StreamingQuery query =
                bed.start(
                        bed.baseReader(table, tunnel).option("max.rows.per.channel", "5").load(),
                        CdcTestBed.checkpointDir(),
                        sink);
        try {
            await(query, "16 rows", Duration.ofSeconds(45), () -> sink.count() >= 16);
        } finally {
            query.stop();
        }

        long lastBaseBatch = -1;
        long firstStreamBatch = Long.MAX_VALUE;
        for (Map.Entry<Long, java.util.List<Row>> batch : sink.batches.entrySet()) {
            for (Row r : batch.getValue()) {
                boolean base = r.getString(r.fieldIndex("_channel")).startsWith("BaseData_");
                assertThat(r.getString(0)).startsWith(base ? "base" : "stream");
                if (base) {
                    lastBaseBatch = Math.max(lastBaseBatch, batch.getKey());
                } else {
                    firstStreamBatch = Math.min(firstStreamBatch, batch.getKey());
                }
            }
        }
        assertThat(lastBaseBatch).isGreaterThanOrEqualTo(2); // 12 rows at 5 per batch
        assertThat(firstStreamBatch).isGreaterThan(lastBaseBatch);
        assertThat(sink.count()).isEqualTo(16);
    }
}
