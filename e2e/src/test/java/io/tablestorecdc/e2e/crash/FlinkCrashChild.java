package io.tablestorecdc.e2e.crash;

import io.tablestorecdc.e2e.DemoTarget;
import io.tablestorecdc.flink.sink.TablestoreSink;
import io.tablestorecdc.flink.source.TablestoreCdcSource;
import java.time.Duration;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.streaming.api.datastream.KeyedStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The Flink job that {@link FlinkCrashLoopITCase} runs in a child JVM (a local cluster inside it,
 * parallelism 2) and kills: the tunnel's changes, keyed by order id, into {@link
 * LoggingReplicaSink} and into a second replica written by {@code TablestoreSink}. Checkpoints
 * every 300 ms into a local directory, retained when the job dies; restored from the checkpoint
 * given as {@code restore}.
 *
 * <p>Arguments ({@code key=value}): endpoint, instance, accessKeyId, table, tunnel, replica,
 * sinkReplica, checkpoints, changeLog (a file name prefix), holdAt, holdMarker, and optionally
 * restore and restarts (attempts of a fixed-delay restart strategy; none by default).
 */
public final class FlinkCrashChild {

    private FlinkCrashChild() {}

    public static void main(String[] argv) throws Exception {
        ChildArgs args = new ChildArgs(argv);
        DemoTarget target = args.target();
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.createLocalEnvironment(2, configuration(args));
        KeyedStream<SequencedChange, String> changes =
                env.fromSource(
                                source(target, args),
                                WatermarkStrategy.noWatermarks(),
                                "orders changes")
                        .uid("tablestore-cdc-source")
                        .keyBy(new ByOrderId());
        changes.sinkTo(sink(target, args.get("sinkReplica"))).uid("tablestore-sink");
        changes.sinkTo(
                        new LoggingReplicaSink(
                                target,
                                args.get("replica"),
                                args.get("changeLog"),
                                args.number("holdAt"),
                                args.get("holdMarker")))
                .uid("logging-replica-sink");
        ChildOutput.say(
                "job starting" + (args.has("restore") ? " from " + args.get("restore") : " fresh"));
        try {
            env.execute("tablestore-cdc crash loop"); // runs until the test kills this JVM
        } catch (Exception e) {
            e.printStackTrace();
            System.exit(1); // the job failed for good: the test sees the process end
        }
    }

    /**
     * Checkpoints every 300 ms into {@code checkpoints}, retained; no restarts unless {@code
     * restarts=N}; restored from {@code restore} when given (also the tables crash loop's).
     */
    static Configuration configuration(ChildArgs args) {
        Configuration conf = new Configuration();
        conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(300));
        conf.set(CheckpointingOptions.CHECKPOINT_STORAGE, "filesystem");
        conf.set(
                CheckpointingOptions.CHECKPOINTS_DIRECTORY,
                args.path("checkpoints").toUri().toString());
        conf.set(
                CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
                ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
        conf.set(CheckpointingOptions.MAX_RETAINED_CHECKPOINTS, 3);
        // A failure ends the child (the test sees it die) instead of a silent in-JVM failover,
        // unless the test asks for restarts ({@code restarts=N}, as a production job has them).
        int restarts = args.has("restarts") ? args.number("restarts") : 0;
        if (restarts > 0) {
            conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
            conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, restarts);
            conf.set(
                    RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY,
                    Duration.ofMillis(200));
        } else {
            conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        }
        conf.set(PipelineOptions.GENERIC_TYPES, false);
        if (args.has("restore")) {
            conf.set(StateRecoveryOptions.SAVEPOINT_PATH, args.get("restore"));
        }
        return conf;
    }

    /** The second replica, written by the product's own sink at each change's sequence. */
    private static TablestoreSink<SequencedChange> sink(DemoTarget target, String table) {
        return TablestoreSink.<SequencedChange>builder()
                .setEndpoint(target.endpoint())
                .setInstanceName(target.instanceName())
                .setCredentials(target.accessKeyId(), target.accessKeySecret())
                .setTableName(table)
                .setConverter(new SequencedChangeWrites())
                .build();
    }

    private static TablestoreCdcSource<SequencedChange> source(DemoTarget target, ChildArgs args) {
        return TablestoreCdcSource.<SequencedChange>builder()
                .setEndpoint(target.endpoint())
                .setInstanceName(target.instanceName())
                .setCredentials(target.accessKeyId(), target.accessKeySecret())
                .setTableName(args.get("table"))
                .setTunnelName(args.get("tunnel"))
                .setDiscoveryInterval(Duration.ofMillis(500))
                .setDeserializer(new SequencedChangeDeserializer())
                .build();
    }

    /** Keeps one order's changes on one sink subtask, in order. */
    static final class ByOrderId implements KeySelector<SequencedChange, String> {
        private static final long serialVersionUID = 1L;

        @Override
        public String getKey(SequencedChange change) {
            return change.change.orderId;
        }
    }
}
