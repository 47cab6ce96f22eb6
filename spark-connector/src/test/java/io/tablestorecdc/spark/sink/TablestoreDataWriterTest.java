package io.tablestorecdc.spark.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.tablestorecdc.checkpoint.model.CellValue;
import io.tablestorecdc.checkpoint.write.RowWrite;
import io.tablestorecdc.checkpoint.write.TableWriteClient;
import io.tablestorecdc.checkpoint.write.WriteMode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.metric.CustomMetric;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.Test;

/** A task's writer reports what it wrote and what that cost, under the metrics Spark shows. */
class TablestoreDataWriterTest {

    @Test
    void theTaskMetricsCountRowsRequestsAndTheCapacityUnitsTheServiceReported() {
        Requests client = new Requests();
        StructType schema =
                new StructType()
                        .add("id", DataTypes.LongType, false)
                        .add("name", DataTypes.StringType);
        SparkRowWriteConverter converter =
                new SparkRowWriteConverter(
                        schema,
                        List.of(new TableWriteClient.KeyColumn("id", CellValue.Type.INTEGER)),
                        WriteMode.PUT,
                        "orders");
        TablestoreDataWriter writer =
                new TablestoreDataWriter(
                        client, TablestoreWriteOptions.parse(options()), converter);
        for (long id = 1; id <= 3; id++) {
            writer.write(row(id, "n" + id));
        }
        writer.commit();

        Map<String, Long> metrics = new HashMap<>();
        for (CustomTaskMetric metric : writer.currentMetricsValues()) {
            metrics.put(metric.name(), metric.value());
        }
        assertThat(metrics)
                .containsEntry(TablestoreDataWriter.ROWS_WRITTEN, 3L)
                .containsEntry(TablestoreDataWriter.REQUESTS, 1L)
                .containsEntry(TablestoreDataWriter.WRITE_CAPACITY_UNITS, 6L);
        List<String> declared = new ArrayList<>();
        for (CustomMetric metric :
                new TablestoreWrite(TablestoreWriteOptions.parse(options()), converter)
                        .supportedCustomMetrics()) {
            declared.add(metric.name());
        }
        assertThat(declared).containsAll(metrics.keySet());
    }

    private static InternalRow row(long id, String name) {
        return new GenericInternalRow(new Object[] {id, UTF8String.fromString(name)});
    }

    private static Map<String, String> options() {
        Map<String, String> options = new HashMap<>();
        options.put("endpoint", "http://127.0.0.1:8080");
        options.put("instance.name", "inst");
        options.put("access.key.id", "AK");
        options.put("access.key.secret", "SECRET");
        options.put("table.name", "orders");
        return options;
    }

    /** Every row succeeds, costing 2 write capacity units. */
    private static final class Requests implements TableWriteClient {
        @Override
        public List<RowOutcome> batchWrite(String table, List<RowWrite> rows) {
            List<RowOutcome> out = new ArrayList<>();
            rows.forEach(r -> out.add(RowOutcome.ok(2)));
            return out;
        }

        @Override
        public List<KeyColumn> primaryKey(String table) {
            return List.of(new KeyColumn("id", CellValue.Type.INTEGER));
        }

        @Override
        public void close() {}
    }
}
