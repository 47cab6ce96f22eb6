package io.tablestorecdc.flink.source;

import io.tablestorecdc.checkpoint.settings.TunnelCreation;
import io.tablestorecdc.flink.source.config.TablestoreCdcSourceConfig;
import io.tablestorecdc.flink.source.deserializer.ChangeRecordDeserializer;
import io.tablestorecdc.flink.source.enumerator.EnumeratorState;
import io.tablestorecdc.flink.source.enumerator.EnumeratorStateSerializer;
import io.tablestorecdc.flink.source.enumerator.TablestoreCdcEnumerator;
import io.tablestorecdc.flink.source.reader.ChangeRecordEmitter;
import io.tablestorecdc.flink.source.reader.ChannelSplitReader;
import io.tablestorecdc.flink.source.reader.FetchedChannels;
import io.tablestorecdc.flink.source.reader.TablestoreCdcSourceReader;
import io.tablestorecdc.flink.source.reader.TunnelClients;
import io.tablestorecdc.flink.source.split.ChannelSplit;
import io.tablestorecdc.flink.source.split.ChannelSplitSerializer;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;
import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.util.UserCodeClassLoader;

/**
 * A Flink source of a Tablestore table's changes, read exactly once through a tunnel: one split per
 * tunnel channel, lineage kept across partition splits and merges. Build it with {@link
 * #builder()}.
 *
 * <pre>{@code
 * TablestoreCdcSource<String> source = TablestoreCdcSource.<String>builder()
 *         .setEndpoint("https://myinstance.cn-hangzhou.ots.aliyuncs.com")
 *         .setInstanceName("myinstance")
 *         .setCredentials(accessKeyId, accessKeySecret)
 *         .setTableName("orders")
 *         .setTunnelName("orders-to-flink")
 *         .setDeserializer(myDeserializer)
 *         .build();
 * env.fromSource(source, WatermarkStrategy.noWatermarks(), "orders changes");
 * }</pre>
 *
 * @param <T> the type of the records produced
 */
@PublicEvolving
public final class TablestoreCdcSource<T>
        implements Source<T, ChannelSplit, EnumeratorState>, ResultTypeQueryable<T> {

    private static final long serialVersionUID = 1L;

    private final TablestoreCdcSourceConfig config;
    private final ChangeRecordDeserializer<T> deserializer;
    private final TunnelProxyFactory proxyFactory;
    private final MetaTableClientFactory metaFactory;

    /**
     * Names this job as the tunnel's owner (invariant 8) until its state holds one: generated when
     * the job is built, it travels in the job graph, so failovers of the job (also before its first
     * checkpoint, and JobManager failovers) keep it, while a second submission gets another.
     */
    private final String consumerId;

    TablestoreCdcSource(
            TablestoreCdcSourceConfig config,
            ChangeRecordDeserializer<T> deserializer,
            TunnelProxyFactory proxyFactory,
            MetaTableClientFactory metaFactory,
            String consumerId) {
        this.config = config;
        this.deserializer = deserializer;
        this.proxyFactory = proxyFactory;
        this.metaFactory = metaFactory;
        this.consumerId = consumerId;
    }

    /** A builder for a source producing {@code T}. */
    public static <T> TablestoreCdcSourceBuilder<T> builder() {
        return new TablestoreCdcSourceBuilder<>();
    }

    /** The validated settings (secrets redacted in {@code toString()}). */
    @Internal
    public TablestoreCdcSourceConfig config() {
        return config;
    }

    /**
     * Bounded with an end position ({@code scan.bounded.stop-at}) and for base-data tunnels this
     * source creates; otherwise continuous.
     */
    @Override
    public Boundedness getBoundedness() {
        return config.stopAt().isPresent() || config.tunnelCreation() == TunnelCreation.BASE
                ? Boundedness.BOUNDED
                : Boundedness.CONTINUOUS_UNBOUNDED;
    }

    @Override
    public SplitEnumerator<ChannelSplit, EnumeratorState> createEnumerator(
            SplitEnumeratorContext<ChannelSplit> context) {
        return restoreEnumerator(context, EnumeratorState.initial());
    }

    @Override
    public SplitEnumerator<ChannelSplit, EnumeratorState> restoreEnumerator(
            SplitEnumeratorContext<ChannelSplit> context, EnumeratorState checkpoint) {
        return new TablestoreCdcEnumerator(
                context,
                config,
                proxyFactory,
                metaFactory,
                checkpoint.consumerId().orElse(consumerId),
                checkpoint);
    }

    @Override
    public SourceReader<T, ChannelSplit> createReader(SourceReaderContext context)
            throws Exception {
        deserializer.open(initializationContext(context));
        TunnelClients clients = new TunnelClients();
        FetchedChannels fetched = new FetchedChannels();
        TunnelMetricGauges gauges = TunnelMetricGauges.registerOn(context.metricGroup());
        ChangeRecordEmitter<T> emitter =
                new ChangeRecordEmitter<>(
                        deserializer,
                        config.ignoreDelete(),
                        config.skipInvalidData(),
                        context.metricGroup().getNumRecordsInErrorsCounter(),
                        config.readsSeveralTables() ? "" : config.tableName(),
                        tableRecordCounters(context.metricGroup()));
        return new TablestoreCdcSourceReader<>(
                () ->
                        new ChannelSplitReader(
                                gauges.track(proxyFactory.create(config)),
                                clients::of,
                                fetched,
                                config.stopAt()),
                emitter,
                clients,
                fetched,
                new Configuration(context.getConfiguration()),
                context);
    }

    /** Each table's {@code table.<name>.recordsRead} of a reader, registered once. */
    private static Function<String, Counter> tableRecordCounters(MetricGroup readerMetrics) {
        Map<String, Counter> counters = new HashMap<>();
        return table ->
                counters.computeIfAbsent(
                        table,
                        t ->
                                TablestoreCdcSourceReader.tableGroup(readerMetrics, t)
                                        .counter(TablestoreCdcSourceReader.RECORDS_READ));
    }

    private static DeserializationSchema.InitializationContext initializationContext(
            SourceReaderContext context) {
        return new DeserializationSchema.InitializationContext() {
            @Override
            public MetricGroup getMetricGroup() {
                return context.metricGroup().addGroup("deserializer");
            }

            @Override
            public UserCodeClassLoader getUserCodeClassLoader() {
                return context.getUserCodeClassLoader();
            }
        };
    }

    @Override
    public SimpleVersionedSerializer<ChannelSplit> getSplitSerializer() {
        return new ChannelSplitSerializer();
    }

    @Override
    public SimpleVersionedSerializer<EnumeratorState> getEnumeratorCheckpointSerializer() {
        return new EnumeratorStateSerializer();
    }

    @Override
    public TypeInformation<T> getProducedType() {
        return deserializer.getProducedType();
    }

    @Override
    public String toString() {
        return "TablestoreCdcSource{" + config + "}";
    }
}
