package io.tablestorecdc.flink.source.exit;

import io.tablestorecdc.checkpoint.settings.TunnelCreation;
import io.tablestorecdc.flink.source.TablestoreCdcSource;
import io.tablestorecdc.flink.source.config.StartPosition;
import io.tablestorecdc.flink.source.testing.RecordStrings;
import java.time.Duration;
import java.time.Instant;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

/**
 * The job {@link ApplicationExitITCase} runs in a child JVM, written as a user writes one: a
 * bounded read of a tunnel in a local environment, {@code execute()}, return from {@code main}. Its
 * last line says when {@code main} returned.
 *
 * <p>Arguments: endpoint, instance, access key id, secret, table, tunnel.
 */
public final class FlinkStopThenReturn {

    /** The line printed right before {@code main} returns. */
    static final String RETURNED = "main returned";

    public static void main(String[] args) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        TablestoreCdcSource<String> source =
                TablestoreCdcSource.<String>builder()
                        .setEndpoint(args[0])
                        .setInstanceName(args[1])
                        .setCredentials(args[2], args[3])
                        .setTableName(args[4])
                        .setTunnelName(args[5])
                        .setTunnelCreation(TunnelCreation.STREAM)
                        .setStartPosition(StartPosition.earliest())
                        .setDiscoveryInterval(Duration.ofMillis(200))
                        .setStopAt(Instant.now().plusSeconds(1))
                        .setDeserializer(new RecordStrings())
                        .build();
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "changes")
                .sinkTo(new DiscardingSink<>());
        env.execute("stop-then-return");
        System.out.println(RETURNED);
        System.out.flush();
    }

    private FlinkStopThenReturn() {}
}
