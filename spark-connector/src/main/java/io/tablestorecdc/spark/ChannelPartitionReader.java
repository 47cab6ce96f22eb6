package io.tablestorecdc.spark;

import io.tablestorecdc.checkpoint.meta.MetaStore;
import io.tablestorecdc.checkpoint.meta.SdkMetaTableClient;
import io.tablestorecdc.checkpoint.model.BatchToken;
import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.model.TablestoreEndpoint;
import io.tablestorecdc.checkpoint.read.ChannelBatchReader;
import io.tablestorecdc.checkpoint.read.ChannelReadLimit;
import io.tablestorecdc.checkpoint.tunnel.SdkTunnelProxy;
import io.tablestorecdc.checkpoint.tunnel.TunnelMetrics;
import io.tablestorecdc.checkpoint.tunnel.TunnelRetryPolicy;
import java.util.Optional;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads one channel's part of one batch on an executor and records where it ended.
 *
 * <p>If the end snapshot already holds this channel's entry, the batch ran before (task retry,
 * speculative attempt, re-run after a restart): the reader replays exactly the recorded number of
 * records (invariant 1). Otherwise it reads up to its limit and fills the entry conditionally; a
 * different entry written meanwhile by another attempt fails this task (invariant 2), and Spark's
 * retry then replays.
 */
final class ChannelPartitionReader implements PartitionReader<InternalRow> {

    private static final Logger LOG = LoggerFactory.getLogger(ChannelPartitionReader.class);

    private final ChannelInputPartition partition;
    private final CountingTunnelProxy proxy;
    private final SdkMetaTableClient metaClient;
    private final ChannelBatchReader reader;
    private final Optional<ChannelCheckpoint> recorded;
    private final ChangeRowConverter converter;
    private final TunnelMetrics tunnelMetrics;
    private InternalRow current;
    private long recordsRead;
    private boolean done;
    private boolean failed;

    private ChannelPartitionReader(
            ChannelInputPartition partition,
            CountingTunnelProxy proxy,
            SdkMetaTableClient metaClient,
            ChangeRowConverter converter,
            TunnelMetrics tunnelMetrics,
            ChannelReadLimit limit) {
        this.partition = partition;
        this.proxy = proxy;
        this.metaClient = metaClient;
        this.converter = converter;
        this.tunnelMetrics = tunnelMetrics;
        ChannelCheckpoint start = partition.start().toCheckpoint();
        this.recorded = new MetaStore(metaClient).entry(tunnelId(), endToken(), start.channelId());
        this.reader =
                recorded.isPresent()
                        ? ChannelBatchReader.replay(
                                this.proxy,
                                partition.client(),
                                start,
                                recorded.get(),
                                ChannelBatchReader.IdleBackoff.exponential())
                        : ChannelBatchReader.firstRead(
                                this.proxy, partition.client(), start, limit, System::nanoTime);
    }

    static ChannelPartitionReader open(
            TablestoreSourceOptions options, OutputSchema schema, ChannelInputPartition partition) {
        TablestoreEndpoint endpoint = options.tablestoreEndpoint();
        TunnelMetrics metrics = new TunnelMetrics();
        SdkTunnelProxy proxy = SdkTunnelProxy.create(endpoint, TunnelRetryPolicy.DEFAULT, metrics);
        SdkMetaTableClient meta = null;
        try {
            meta = SdkMetaTableClient.connect(endpoint, options.metaTable());
            long cap =
                    partition.maxRecords() == TablestoreOffset.UNCAPPED
                            ? Long.MAX_VALUE
                            : partition.maxRecords();
            return new ChannelPartitionReader(
                    partition,
                    new CountingTunnelProxy(proxy),
                    meta,
                    ChangeRowConverter.of(schema, options),
                    metrics,
                    new ChannelReadLimit(cap, options.channelReadBudget()));
        } catch (RuntimeException e) {
            proxy.close();
            if (meta != null) {
                meta.close();
            }
            throw e;
        }
    }

    @Override
    public boolean next() {
        if (done) {
            return false;
        }
        try {
            while (true) {
                Optional<ChangeRecord> record = reader.next();
                if (record.isEmpty()) {
                    finish();
                    return false;
                }
                recordsRead++;
                Optional<InternalRow> row = converter.convert(record.get());
                if (row.isPresent()) {
                    current = row.get();
                    return true;
                }
            }
        } catch (RuntimeException e) {
            failed = true;
            throw e;
        }
    }

    @Override
    public InternalRow get() {
        return current;
    }

    /** A first read records its end; a replay's end is the recorded one already. */
    private void finish() {
        done = true;
        if (recorded.isEmpty()) {
            new MetaStore(metaClient).fill(tunnelId(), endToken(), reader.endCheckpoint());
        }
    }

    @Override
    public CustomTaskMetric[] currentMetricsValues() {
        return SourceMetrics.taskValues(
                recordsRead,
                proxy.readRequests(),
                converter.skippedInvalid(),
                tunnelMetrics.retries());
    }

    /**
     * A consumer that stops pulling early (for example {@code limit}) still completes the batch:
     * the rest of this channel's part is read and recorded, so that the end snapshot is complete.
     */
    @Override
    public void close() {
        try {
            if (!done && !failed && !Thread.currentThread().isInterrupted()) {
                while (reader.next().isPresent()) {
                    recordsRead++;
                }
                finish();
            }
        } catch (RuntimeException e) {
            LOG.warn(
                    "Could not complete channel {} of batch {} after the consumer stopped early;"
                            + " the batch is replayed when it runs again: {}",
                    partition.start().channelId(),
                    partition.endToken(),
                    e.getMessage());
        } finally {
            proxy.close();
            metaClient.close();
        }
    }

    private String tunnelId() {
        return partition.client().tunnelId();
    }

    private BatchToken endToken() {
        return BatchToken.parse(partition.endToken());
    }
}
