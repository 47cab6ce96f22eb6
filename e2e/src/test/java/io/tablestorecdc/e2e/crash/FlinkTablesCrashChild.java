package io.tablestorecdc.e2e.crash;

import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.settings.TunnelCreation;
import io.tablestorecdc.e2e.DemoTarget;
import io.tablestorecdc.flink.compat.WriterInitContextSink;
import io.tablestorecdc.flink.source.TablestoreCdcSource;
import io.tablestorecdc.flink.source.config.StartPosition;
import io.tablestorecdc.flink.source.deserializer.ChangeRecordDeserializer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.sink2.StatefulSinkWriter;
import org.apache.flink.api.connector.sink2.SupportsWriterState;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.Collector;

/**
 * The Flink job that {@link FlinkTablesCrashITCase} runs in a child JVM (a local cluster inside it,
 * parallelism 2) and kills: one source of every table matching {@code pattern}, whose sink appends
 * the changes of each checkpoint to a log when the checkpoint's barrier reaches it, one line per
 * change ({@code checkpoint table id}). Checkpoints every 300 ms into a local directory, retained
 * when the job dies; restored from the checkpoint given as {@code restore}.
 *
 * <p>Arguments ({@code key=value}): endpoint, instance, accessKeyId, pattern, tunnel, checkpoints,
 * log, and optionally restore.
 */
public final class FlinkTablesCrashChild {

    private FlinkTablesCrashChild() {}

    public static void main(String[] argv) throws Exception {
        ChildArgs args = new ChildArgs(argv);
        DemoTarget target = args.target();
        Configuration conf = FlinkCrashChild.configuration(args);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(2, conf);
        TablestoreCdcSource<String> source =
                TablestoreCdcSource.<String>builder()
                        .setEndpoint(target.endpoint())
                        .setInstanceName(target.instanceName())
                        .setCredentials(target.accessKeyId(), target.accessKeySecret())
                        .setTablePattern(args.get("pattern"))
                        .setTableDiscoveryInterval(Duration.ofSeconds(1))
                        .setTunnelName(args.get("tunnel"))
                        .setTunnelCreation(TunnelCreation.STREAM)
                        .setStartPosition(StartPosition.earliest())
                        .setDiscoveryInterval(Duration.ofMillis(500))
                        .setDeserializer(new TableAndId())
                        .build();
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "tables changes")
                .uid("tablestore-cdc-source")
                .sinkTo(new CheckpointLog(args.get("log")))
                .uid("checkpoint-log")
                .setParallelism(1);
        ChildOutput.say(
                "job starting" + (args.has("restore") ? " from " + args.get("restore") : " fresh"));
        try {
            env.execute("tablestore-cdc tables crash loop"); // runs until the test kills this JVM
        } catch (Exception e) {
            e.printStackTrace();
            System.exit(1); // the job failed for good: the test sees the process end
        }
    }

    /** A change as {@code table id}. */
    static final class TableAndId implements ChangeRecordDeserializer<String> {
        private static final long serialVersionUID = 1L;

        @Override
        public void deserialize(ChangeRecord record, Collector<String> out) {
            out.collect(record.table() + " " + record.primaryKey().get(0).value().asString());
        }

        @Override
        public TypeInformation<String> getProducedType() {
            return Types.STRING;
        }
    }

    /**
     * Buffers changes and appends them to the log under the checkpoint id when the checkpoint's
     * barrier reaches the writer, after every change the checkpoint holds. The writer keeps no
     * state, so a restored one starts empty and the changes after the checkpoint come again.
     */
    static final class CheckpointLog extends WriterInitContextSink<String>
            implements SupportsWriterState<String, Void> {
        private static final long serialVersionUID = 1L;
        private final String log;

        CheckpointLog(String log) {
            this.log = log;
        }

        @Override
        public StatefulSinkWriter<String, Void> createWriter(WriterInitContext context) {
            return new StatefulSinkWriter<>() {
                private List<String> buffer = new ArrayList<>();

                @Override
                public void write(String change, Context ctx) {
                    buffer.add(change);
                }

                @Override
                public void flush(boolean endOfInput) {}

                @Override
                public List<Void> snapshotState(long checkpoint) {
                    if (!buffer.isEmpty()) {
                        append(Path.of(log), checkpoint, buffer);
                        ChildOutput.say("checkpoint " + checkpoint + ": " + buffer.size());
                        buffer = new ArrayList<>();
                    }
                    return List.of();
                }

                @Override
                public void close() {}
            };
        }

        @Override
        public StatefulSinkWriter<String, Void> restoreWriter(
                WriterInitContext context, Collection<Void> recoveredState) {
            return createWriter(context);
        }

        @Override
        public SimpleVersionedSerializer<Void> getWriterStateSerializer() {
            return new SimpleVersionedSerializer<>() {
                @Override
                public int getVersion() {
                    return 1;
                }

                @Override
                public byte[] serialize(Void state) {
                    return new byte[0];
                }

                @Override
                public Void deserialize(int version, byte[] serialized) {
                    return null;
                }
            };
        }
    }

    private static void append(Path log, long checkpoint, List<String> changes) {
        StringBuilder text = new StringBuilder();
        for (String change : changes) {
            text.append(checkpoint).append(' ').append(change).append('\n');
        }
        try {
            Files.writeString(
                    log,
                    text,
                    StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND,
                    StandardOpenOption.SYNC);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
