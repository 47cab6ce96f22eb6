package io.tablestorecdc.flink.sink;

import static org.assertj.core.api.Assertions.assertThat;

import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.emulator.testkit.EmulatorBed;
import io.tablestorecdc.flink.source.TablestoreCdcSource;
import io.tablestorecdc.flink.source.deserializer.ChangeRecordDeserializer;
import io.tablestorecdc.flink.testing.FlinkJobs;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The DataStream sink fed by the DataStream source: change records applied as what they were (puts,
 * partial updates with column deletes, row deletes), the replica compared by GetRange.
 */
class TablestoreSinkITCase {

    @RegisterExtension
    static final MiniClusterExtension CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    private static EmulatorBed bed;

    @BeforeAll
    static void startEmulator() {
        bed = EmulatorBed.start();
    }

    @AfterAll
    static void stopEmulator() {
        bed.close();
    }

    /** The source's records as they are; chained to the sink, they are never serialized. */
    private static final class Records implements ChangeRecordDeserializer<ChangeRecord> {
        @Override
        public void deserialize(ChangeRecord record, Collector<ChangeRecord> out) {
            out.collect(record);
        }

        @Override
        public TypeInformation<ChangeRecord> getProducedType() {
            return TypeInformation.of(ChangeRecord.class);
        }
    }

    /** Fails the job once, at the {@code n}-th record after it is armed. */
    private static final class FailOnce implements MapFunction<ChangeRecord, ChangeRecord> {
        static final AtomicInteger COUNTDOWN = new AtomicInteger(-1);

        @Override
        public ChangeRecord map(ChangeRecord record) {
            if (COUNTDOWN.getAndDecrement() == 0) {
                throw new IllegalStateException("failing once, on purpose");
            }
            return record;
        }
    }

    @Test
    void changeRecordsReplicateTheTableExactly() throws Exception {
        String source = bed.newTable("ds_src_");
        String replica = bed.newTable("ds_replica_");
        JobClient job = startReplication(source, replica, false);
        try {
            bed.put(source, "a", col("v", 1), col("name", "x"), col("extra", 5));
            bed.update(source, "a", col("v", 2));
            bed.deleteColumn(source, "a", "extra");
            bed.put(source, "b", col("v", 3));
            bed.put(source, "c", col("v", 4));
            bed.delete(source, "c");
            bed.update(source, "d", col("name", "new"));

            awaitReplicaEqualsSource(job, source, replica);
            assertThat(TableRows.scan(bed.sync(), replica))
                    .containsExactly(
                            Map.entry("a", Map.of("v", 2L, "name", "x")),
                            Map.entry("b", Map.of("v", 3L)),
                            Map.entry("d", Map.of("name", "new")));
        } finally {
            FlinkJobs.cancelAndAwaitEnd(job);
        }
    }

    @Test
    void afterAFailoverTheReplayedWritesStillLeaveTheSourcesRows() throws Exception {
        String source = bed.newTable("ds_src_");
        String replica = bed.newTable("ds_replica_");
        FailOnce.COUNTDOWN.set(30);
        JobClient job = startReplication(source, replica, true);
        try {
            for (int i = 0; i < 60; i++) {
                String id = "k" + (i % 10);
                switch (i % 3) {
                    case 0 -> bed.put(source, id, col("v", i), col("name", "n" + i));
                    case 1 -> bed.update(source, id, col("v", i));
                    default -> bed.deleteColumn(source, id, "name");
                }
                if (i % 7 == 6) {
                    bed.delete(source, "k" + (i % 10));
                }
            }
            awaitReplicaEqualsSource(job, source, replica);
            assertThat(FailOnce.COUNTDOWN.get()).as("the job failed once").isNegative();
        } finally {
            FlinkJobs.cancelAndAwaitEnd(job);
        }
    }

    private JobClient startReplication(String source, String replica, boolean failOnce)
            throws Exception {
        String tunnel = source + "_tunnel";
        bed.createStreamTunnel(source, tunnel);
        Configuration config = new Configuration();
        config.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        config.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
        config.set(
                RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(100));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.enableCheckpointing(300);
        env.setParallelism(1);
        env.getConfig().enableObjectReuse();
        DataStream<ChangeRecord> changes =
                env.fromSource(
                        TablestoreCdcSource.<ChangeRecord>builder()
                                .setEndpoint(bed.emulator().endpoint())
                                .setInstanceName(bed.emulator().instanceName())
                                .setCredentials(
                                        bed.emulator().accessKeyId(),
                                        bed.emulator().accessKeySecret())
                                .setTableName(source)
                                .setTunnelName(tunnel)
                                .setDiscoveryInterval(Duration.ofMillis(200))
                                .setDeserializer(new Records())
                                .build(),
                        WatermarkStrategy.noWatermarks(),
                        "tablestore-cdc");
        (failOnce ? changes.map(new FailOnce()) : changes)
                .sinkTo(
                        TablestoreSink.<ChangeRecord>builder()
                                .setEndpoint(bed.emulator().endpoint())
                                .setInstanceName(bed.emulator().instanceName())
                                .setCredentials(
                                        bed.emulator().accessKeyId(),
                                        bed.emulator().accessKeySecret())
                                .setTableName(replica)
                                .setBufferFlushInterval(Duration.ZERO)
                                .setConverter(RowWriteConverter.changeRecords())
                                .build());
        return env.executeAsync("replicate");
    }

    private static void awaitReplicaEqualsSource(JobClient job, String source, String replica) {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!TableRows.scan(bed.sync(), replica).equals(TableRows.scan(bed.sync(), source))) {
            assertThat(job.getJobExecutionResult()).isNotDone();
            assertThat(System.nanoTime())
                    .as(
                            "source %s, replica %s",
                            TableRows.scan(bed.sync(), source), TableRows.scan(bed.sync(), replica))
                    .isLessThan(deadline);
            LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
        }
    }

    private static Column col(String name, long value) {
        return new Column(name, ColumnValue.fromLong(value));
    }

    private static Column col(String name, String value) {
        return new Column(name, ColumnValue.fromString(value));
    }
}
