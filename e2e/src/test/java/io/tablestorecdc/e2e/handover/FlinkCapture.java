package io.tablestorecdc.e2e.handover;

import io.tablestorecdc.flink.source.TablestoreCdcSource;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

/**
 * A local Flink job (parallelism 2, a checkpoint every second, no restarts) that reads the tunnel
 * with {@link TablestoreCdcSource} into a {@link Capture}: the Flink side of the end-to-end tests.
 */
public final class FlinkCapture implements AutoCloseable {

    private static final int PARALLELISM = 2;
    static final Duration CHECKPOINT_INTERVAL = Duration.ofSeconds(1);

    private final String runId = UUID.randomUUID().toString();
    private final Capture.Run run = Capture.register(runId);
    private final JobClient job;
    private boolean ended;

    private FlinkCapture(TunnelTarget target, Optional<String> savepoint) throws Exception {
        Configuration conf = configuration();
        savepoint.ifPresent(path -> conf.set(StateRecoveryOptions.SAVEPOINT_PATH, path));
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.createLocalEnvironment(PARALLELISM, conf);
        env.fromSource(source(target), WatermarkStrategy.noWatermarks(), "orders changes")
                .uid("tablestore-cdc-source")
                .process(new Capture(runId))
                .uid("capture")
                .name("capture")
                .sinkTo(new DiscardingSink<>())
                .uid("discard")
                .name("discard");
        job = env.executeAsync("tablestore-cdc e2e: " + target.tunnel());
    }

    /** Submits the job; it starts without state, as a new job does. */
    public static FlinkCapture start(OrdersStream stream) throws Exception {
        return start(stream.tunnelTarget(), Optional.empty());
    }

    /** Submits a job on {@code target}, restored from {@code savepoint} when one is given. */
    public static FlinkCapture start(TunnelTarget target, Optional<String> savepoint)
            throws Exception {
        return new FlinkCapture(target, savepoint);
    }

    private static Configuration configuration() {
        Configuration conf = new Configuration();
        conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, CHECKPOINT_INTERVAL);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        conf.set(PipelineOptions.GENERIC_TYPES, false);
        return conf;
    }

    private static TablestoreCdcSource<SeenChange> source(TunnelTarget target) {
        return target.connection()
                .applyTo(TablestoreCdcSource.<SeenChange>builder())
                .setTableName(target.table())
                .setTunnelName(target.tunnel())
                .setMetaTable(target.metaTable())
                .setDiscoveryInterval(Duration.ofMillis(500))
                .setDeserializer(new SeenChangeDeserializer())
                .build();
    }

    /**
     * Stops the job with a savepoint in {@code directory}, as a user stops a job to restore it
     * later; returns the savepoint's path.
     */
    public String stopWithSavepoint(Path directory) throws Exception {
        ended = true;
        try {
            String path =
                    job.stopWithSavepoint(
                                    false,
                                    directory.toUri().toString(),
                                    SavepointFormatType.CANONICAL)
                            .get(120, TimeUnit.SECONDS);
            job.getJobExecutionResult().handle((result, error) -> null).get(60, TimeUnit.SECONDS);
            return path;
        } catch (ExecutionException e) {
            // The stop names no cause when the job failed while stopping; its result does.
            Throwable why =
                    job.getJobExecutionResult()
                            .handle((result, error) -> error)
                            .get(60, TimeUnit.SECONDS);
            AssertionError failed =
                    new AssertionError("Stopping the Flink job with a savepoint failed", e);
            if (why != null) {
                failed.addSuppressed(why);
            }
            throw failed;
        }
    }

    public DeliveryLog log() {
        return run.log;
    }

    /** The checkpoints that completed so far, oldest first. */
    public List<Long> completedCheckpoints() {
        return List.copyOf(run.completed);
    }

    /** Fails the test with the job's error if it failed. */
    public void requireHealthy() throws Exception {
        JobStatus status = job.getJobStatus().get(30, TimeUnit.SECONDS);
        if (status == JobStatus.FAILED) {
            try {
                job.getJobExecutionResult().get(30, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new AssertionError("The Flink job failed: " + e.getCause(), e.getCause());
            }
        }
    }

    /** Cancels the job the way a user stops it, and waits until it has ended. */
    public void cancel() throws Exception {
        if (ended) {
            return;
        }
        ended = true;
        JobStatus status = job.getJobStatus().get(30, TimeUnit.SECONDS);
        if (!status.isGloballyTerminalState()) {
            job.cancel().get(60, TimeUnit.SECONDS);
        }
        // Waits for the job to end: its enumerator has then shut its tunnel client down.
        job.getJobExecutionResult().handle((result, error) -> null).get(60, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws Exception {
        try {
            cancel();
        } finally {
            Capture.unregister(runId);
        }
    }
}
