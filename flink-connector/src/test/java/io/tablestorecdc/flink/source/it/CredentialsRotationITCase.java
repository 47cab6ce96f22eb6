package io.tablestorecdc.flink.source.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import io.tablestorecdc.emulator.InstanceMetadataStub;
import io.tablestorecdc.emulator.testkit.EmulatorBed;
import io.tablestorecdc.flink.source.TablestoreCdcSource;
import io.tablestorecdc.flink.source.testing.RecordStrings;
import io.tablestorecdc.flink.testing.CommittingListSink;
import io.tablestorecdc.flink.testing.FlinkJobs;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A running job follows credentials that rotate ({@code credentials.provider = ecs-ram-role}):
 * after the metadata service issues new ones and the instance stops accepting the old ones, the job
 * keeps reading without a restart (restarts are off: a failure would end it).
 */
class CredentialsRotationITCase {

    @RegisterExtension static final MiniClusterExtension CLUSTER = new MiniClusterExtension();

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final Duration REFRESH_BEFORE_EXPIRY = Duration.ofMinutes(5);
    // Credentials served are refreshed 2 s after they were fetched.
    private static final Duration VALIDITY = REFRESH_BEFORE_EXPIRY.plusSeconds(2);

    private static EmulatorBed bed;
    private static InstanceMetadataStub metadata;

    @BeforeAll
    static void start() {
        bed = EmulatorBed.start();
        metadata = InstanceMetadataStub.start(bed.emulator(), "cdc-reader", VALIDITY);
    }

    @AfterAll
    static void stop() {
        metadata.close();
        bed.close();
    }

    @Test
    void aRotatedTokenIsPickedUpByARunningJob() throws Exception {
        String table = bed.newTable("rotate_t");
        bed.createStreamTunnel(table, "rotate_tunnel");
        String sink = "rotation";
        InstanceMetadataStub.Issued first = metadata.current();
        JobClient job = run(table, sink);
        try {
            put(table, "a1", 1);
            put(table, "a2", 2);
            await(job, "the rows written before", () -> committed(sink).size() >= 2);
            assertThat(bed.emulator().acceptedRequestsSignedBy(first.accessKeyId())).isPositive();

            InstanceMetadataStub.Issued old = metadata.rotate();
            InstanceMetadataStub.Issued second = metadata.current();
            // As a real instance does: the old token is refused once it expired, by when every
            // client has replaced it (they replace credentials REFRESH_BEFORE_EXPIRY earlier).
            await(
                    job,
                    "every client to have replaced the old credentials",
                    () ->
                            Instant.now()
                                    .isAfter(
                                            metadata.lastExpirationServed(old)
                                                    .minus(REFRESH_BEFORE_EXPIRY)
                                                    .plusSeconds(1)));
            metadata.revoke(old);
            long oldAccepted = bed.emulator().acceptedRequestsSignedBy(old.accessKeyId());

            put(table, "b1", 3);
            put(table, "b2", 4);
            await(job, "the rows written after the rotation", () -> committed(sink).size() >= 4);

            assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
            assertThat(bed.emulator().acceptedRequestsSignedBy(second.accessKeyId())).isPositive();
            assertThat(bed.emulator().acceptedRequestsSignedBy(old.accessKeyId()))
                    .isEqualTo(oldAccepted);
        } finally {
            FlinkJobs.cancelAndAwaitEnd(job);
        }
        assertThat(committed(sink))
                .containsExactly(
                        "PUT id='a1' v=1", "PUT id='a2' v=2", "PUT id='b1' v=3", "PUT id='b2' v=4");
    }

    private static List<String> committed(String sink) {
        return CommittingListSink.committed(sink);
    }

    private static JobClient run(String table, String sink) throws Exception {
        TablestoreCdcSource<String> source =
                TablestoreCdcSource.<String>builder()
                        .setEndpoint(bed.emulator().endpoint())
                        .setInstanceName(bed.emulator().instanceName())
                        .setCredentialsProvider("ecs-ram-role")
                        .setEcsRamRole(metadata.roleName(), metadata.endpoint())
                        .setTableName(table)
                        .setTunnelName("rotate_tunnel")
                        .setDiscoveryInterval(Duration.ofMillis(200))
                        .setMetaTable("rotate_meta")
                        .setDeserializer(new RecordStrings())
                        .build();
        Configuration config = new Configuration();
        config.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(300));
        config.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(config);
        env.setParallelism(1);
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "tablestore-cdc")
                .sinkTo(new CommittingListSink(sink));
        return env.executeAsync("tablestore-cdc rotation");
    }

    private static void put(String table, String id, long v) {
        bed.put(table, id, new Column("v", ColumnValue.fromLong(v)));
    }

    /** Waits for {@code condition}; fails at once if the job ended. */
    private static void await(JobClient job, String what, BooleanSupplier condition)
            throws Exception {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (!condition.getAsBoolean()) {
            JobStatus status = job.getJobStatus().get();
            if (status.isTerminalState()) {
                throw new AssertionError(
                        "The job ended (" + status + ") while waiting for " + what,
                        job.getJobExecutionResult().handle((r, e) -> e).get());
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Timed out after " + TIMEOUT + " waiting for " + what);
            }
            Thread.sleep(50);
        }
    }
}
