package io.tablestorecdc.flink.table.tablestore;

import static org.assertj.core.api.Assertions.assertThat;

import com.alicloud.openservices.tablestore.model.BatchWriteRowRequest;
import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.CreateTableRequest;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.RowPutChange;
import com.alicloud.openservices.tablestore.model.TableMeta;
import com.alicloud.openservices.tablestore.model.TableOptions;
import io.tablestorecdc.checkpoint.model.TablestoreCredentials;
import io.tablestorecdc.checkpoint.model.TablestoreEndpoint;
import io.tablestorecdc.checkpoint.table.KeyBounds;
import io.tablestorecdc.checkpoint.table.KeyRange;
import io.tablestorecdc.checkpoint.table.SdkTableService;
import io.tablestorecdc.checkpoint.table.TableReader;
import io.tablestorecdc.emulator.server.Faults;
import io.tablestorecdc.emulator.testkit.EmulatorBed;
import io.tablestorecdc.flink.testing.CommittingListSink;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A bounded scan whose job fails over mid-scan, after a checkpoint taken in the middle of its
 * splits: the restored readers continue after the last row each split emitted, so an exactly-once
 * sink holds every row once (restarting a split from its start would repeat the committed rows).
 */
class TablestoreScanFailoverITCase {

    @RegisterExtension
    static final MiniClusterExtension CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(4)
                            .build());

    /** 20 first-column values of 1000 rows: two splits of two GetRange pages (5000 rows) each. */
    private static final int GROUPS = 20;

    private static final int PER_GROUP = 1000;

    /** Rows a completed checkpoint must hold before the failure: a whole first page. */
    private static final long ARM_AFTER = 5000;

    private static final long SPLIT_BYTES = 300 * 1024;

    private static EmulatorBed bed;

    @BeforeAll
    static void startEmulator() {
        bed = EmulatorBed.start();
    }

    @AfterAll
    static void stopEmulator() {
        bed.close();
    }

    @Test
    void aJobFailingMidScanEmitsEveryRowExactlyOnce() throws Exception {
        String table = "failover";
        TableMeta meta = new TableMeta(table);
        meta.addPrimaryKeyColumn("g", PrimaryKeyType.STRING);
        meta.addPrimaryKeyColumn("n", PrimaryKeyType.INTEGER);
        bed.sync().createTable(new CreateTableRequest(meta, new TableOptions(-1, 1)));
        List<String> expected = write(table);
        assertThat(splits(table, SPLIT_BYTES)).as("splits").hasSizeGreaterThanOrEqualTo(2);
        // Paces the scan: each GetRange page (5000 rows) arrives late, so checkpoints complete
        // between the pages of a split, that is in its middle.
        bed.emulator().faults().add(Faults.Rule.latency("GetRange", 500));

        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ZERO);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.enableCheckpointing(50);
        env.setParallelism(2);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        tEnv.executeSql(
                "CREATE TABLE t (g STRING, n BIGINT, PRIMARY KEY (g, n) NOT ENFORCED) WITH ("
                        + connection(table)
                        + ", 'scan.split-size' = '"
                        + SPLIT_BYTES
                        + " b')");
        String sink = "scan-failover";
        tEnv.toDataStream(tEnv.sqlQuery("SELECT g, n FROM t"))
                .map(new FailOnceAfterACheckpoint())
                .setParallelism(1)
                .sinkTo(new CommittingListSink(sink))
                .setParallelism(1);

        try {
            env.execute("scan with a failover");
        } finally {
            bed.emulator().faults().clear();
        }

        assertThat(FailOnceAfterACheckpoint.FAILED).as("the job failed over once").isTrue();
        assertThat(FailOnceAfterACheckpoint.seenAtFailure.get())
                .as("rows seen when it failed: after some rows, before the end")
                .isBetween(ARM_AFTER + 1, (long) expected.size() - 1);
        List<String> committed = CommittingListSink.committed(sink);
        assertThat(committed)
                .hasSize(expected.size())
                .containsExactlyInAnyOrderElementsOf(expected);
    }

    private static List<String> write(String table) {
        List<String> expected = new ArrayList<>();
        for (int g = 0; g < GROUPS; g++) {
            BatchWriteRowRequest request = null;
            for (int n = 0; n < PER_GROUP; n++) {
                if (n % 200 == 0) {
                    if (request != null) {
                        assertThat(bed.sync().batchWriteRow(request).isAllSucceed()).isTrue();
                    }
                    request = new BatchWriteRowRequest();
                }
                String group = String.format("g%02d", g);
                RowPutChange put =
                        new RowPutChange(
                                table,
                                PrimaryKeyBuilder.createPrimaryKeyBuilder()
                                        .addPrimaryKeyColumn("g", PrimaryKeyValue.fromString(group))
                                        .addPrimaryKeyColumn("n", PrimaryKeyValue.fromLong(n))
                                        .build());
                put.addColumn(new Column("v", ColumnValue.fromLong(n)));
                request.addRowChange(put);
                expected.add(group + "," + n);
            }
            assertThat(bed.sync().batchWriteRow(request).isAllSucceed()).isTrue();
        }
        return expected;
    }

    /** Each split's row count at {@code bytes}: the premise that each split has several pages. */
    private static List<Integer> splits(String table, long bytes) {
        try (SdkTableService service =
                SdkTableService.connect(
                        new TablestoreEndpoint(
                                bed.emulator().endpoint(),
                                bed.emulator().instanceName(),
                                TablestoreCredentials.of(
                                        bed.emulator().accessKeyId(),
                                        bed.emulator().accessKeySecret())),
                        table)) {
            TableReader reader = new TableReader(service, 0);
            List<Integer> rows = new ArrayList<>();
            for (KeyRange range : reader.scanRanges(bytes, KeyBounds.all())) {
                int[] count = {0};
                reader.rows(range, Set.of("g")).forEachRemaining(r -> count[0]++);
                rows.add(count[0]);
            }
            assertThat(rows).as("rows per split").allMatch(n -> n > TableReader.PAGE_ROWS);
            return rows;
        }
    }

    private static String connection(String table) {
        return "'connector' = 'tablestore', 'endpoint' = '"
                + bed.emulator().endpoint()
                + "', 'instance.name' = '"
                + bed.emulator().instanceName()
                + "', 'access.key.id' = '"
                + bed.emulator().accessKeyId()
                + "', 'access.key.secret' = '"
                + bed.emulator().accessKeySecret()
                + "', 'table.name' = '"
                + table
                + "'";
    }

    /**
     * Passes rows on; once a checkpoint that holds {@link #ARM_AFTER} rows has completed, fails the
     * task at the next row, once per test run.
     */
    static final class FailOnceAfterACheckpoint extends RichMapFunction<Row, String>
            implements CheckpointedFunction, CheckpointListener {

        static final AtomicBoolean FAILED = new AtomicBoolean();
        static final AtomicLong seenAtFailure = new AtomicLong();
        private static final AtomicBoolean ARMED = new AtomicBoolean();
        private static final Map<Long, Long> SEEN_AT_CHECKPOINT = new ConcurrentHashMap<>();
        private static final AtomicLong SEEN = new AtomicLong();

        @Override
        public String map(Row row) {
            long seen = SEEN.incrementAndGet();
            if (ARMED.get() && FAILED.compareAndSet(false, true)) {
                seenAtFailure.set(seen);
                throw new IllegalStateException("Injected failure after " + seen + " rows");
            }
            return row.getField(0) + "," + row.getField(1);
        }

        @Override
        public void snapshotState(FunctionSnapshotContext context) {
            SEEN_AT_CHECKPOINT.put(context.getCheckpointId(), SEEN.get());
        }

        @Override
        public void initializeState(FunctionInitializationContext context) {}

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            if (SEEN_AT_CHECKPOINT.getOrDefault(checkpointId, 0L) >= ARM_AFTER) {
                ARMED.set(true);
            }
        }
    }
}
