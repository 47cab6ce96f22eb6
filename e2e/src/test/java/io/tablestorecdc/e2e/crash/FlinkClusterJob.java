package io.tablestorecdc.e2e.crash;

import io.tablestorecdc.checkpoint.tunnel.SdkCredentials;
import io.tablestorecdc.e2e.DemoTarget;
import io.tablestorecdc.flink.sink.TablestoreSink;
import io.tablestorecdc.flink.source.TablestoreCdcSource;
import java.time.Duration;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.streaming.api.datastream.KeyedStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The job {@code FlinkSessionClusterITCase} submits to a standalone session cluster as a jar: the
 * tunnel's changes, keyed by order id, into a replica table written by {@code TablestoreSink} and
 * into {@link LoggingReplicaSink} (a change log per sink subtask and attempt, and a second
 * replica). Credentials come only from the environment of the cluster's JVMs ({@code
 * credentials.provider = env}); nothing secret is in the job's arguments or its graph.
 *
 * <p>Arguments ({@code key=value}): endpoint, instance, table, tunnel, replica, sinkReplica,
 * checkpoints (a directory), changeLog (a file name prefix).
 */
public final class FlinkClusterJob {

    private FlinkClusterJob() {}

    public static void main(String[] argv) throws Exception {
        ChildArgs args = new ChildArgs(argv);
        Configuration conf = new Configuration();
        conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(500));
        conf.set(CheckpointingOptions.CHECKPOINT_STORAGE, "filesystem");
        conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, args.get("checkpoints"));
        conf.set(
                CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
                ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
        conf.set(PipelineOptions.GENERIC_TYPES, false);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        KeyedStream<SequencedChange, String> changes =
                env.fromSource(source(args), WatermarkStrategy.noWatermarks(), "orders changes")
                        .uid("tablestore-cdc-source")
                        .keyBy(new FlinkCrashChild.ByOrderId());
        changes.sinkTo(sink(args)).uid("tablestore-sink");
        changes.sinkTo(
                        new LoggingReplicaSink(
                                fromEnvironment(args),
                                args.get("replica"),
                                args.get("changeLog"),
                                0,
                                args.get("changeLog") + ".hold"))
                .uid("logging-replica-sink");
        env.execute("tablestore-cdc on a session cluster");
    }

    /** The change-log sink's own client signs in with the cluster's environment, too. */
    private static DemoTarget fromEnvironment(ChildArgs args) {
        return new DemoTarget(
                args.get("endpoint"),
                args.get("instance"),
                System.getenv(SdkCredentials.ENV_ACCESS_KEY_ID),
                System.getenv(SdkCredentials.ENV_ACCESS_KEY_SECRET));
    }

    private static TablestoreCdcSource<SequencedChange> source(ChildArgs args) {
        return TablestoreCdcSource.<SequencedChange>builder()
                .setEndpoint(args.get("endpoint"))
                .setInstanceName(args.get("instance"))
                .setCredentialsProvider("env")
                .setTableName(args.get("table"))
                .setTunnelName(args.get("tunnel"))
                .setDiscoveryInterval(Duration.ofMillis(500))
                .setDeserializer(new SequencedChangeDeserializer())
                .build();
    }

    private static TablestoreSink<SequencedChange> sink(ChildArgs args) {
        return TablestoreSink.<SequencedChange>builder()
                .setEndpoint(args.get("endpoint"))
                .setInstanceName(args.get("instance"))
                .setCredentialsProvider("env")
                .setTableName(args.get("sinkReplica"))
                .setConverter(new SequencedChangeWrites())
                .build();
    }
}
