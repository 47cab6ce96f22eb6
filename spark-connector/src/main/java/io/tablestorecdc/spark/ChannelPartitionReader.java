package io.tablestorecdc.spark;

import io.tablestorecdc.checkpoint.meta.MetaStore;
import io.tablestorecdc.checkpoint.meta.SdkMetaTableClient;
import io.tablestorecdc.checkpoint.model.BatchToken;
import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.model.TablestoreEndpoint;
import io.tablestorecdc.checkpoint.read.ChannelBatchReader;
import io.tablestorecdc.checkpoint.read.ChannelReadLimit;
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
 *
 * <p>The SDK clients are borrowed from this JVM's {@link ExecutorClients} and given back at {@link
 * #close()}, never shut down here.
 */
final class ChannelPartitionReader implements PartitionReader<InternalRow> {

    private static final Logger LOG = LoggerFactory.getLogger(ChannelPartitionReader.class);

    private final ChannelInputPartition partition;
    private final Borrowed clients;
    private final CountingTunnelProxy proxy;
    private final ReadAheadTunnelProxy readAhead;
    private final SdkMetaTableClient metaClient;
    private final ChannelBatchReader reader;
    private final Optional<ChannelCheckpoint> recorded;
    private final ChangeRowConverter converter;
    private InternalRow current;
    private long recordsRead;
    private long tunnelRetries;
    private boolean done;
    private boolean failed;

    private ChannelPartitionReader(
            ChannelInputPartition partition,
            Borrowed clients,
            ChangeRowConverter converter,
            ChannelReadLimit limit) {
        this.partition = partition;
        this.clients = clients;
        this.proxy = new CountingTunnelProxy(clients.tunnel().client().proxy());
        this.metaClient = clients.metaTable().client();
        this.converter = converter;
        ChannelCheckpoint start = partition.start().toCheckpoint();
        this.readAhead =
                new ReadAheadTunnelProxy(
                        proxy, ExecutorClients.readAheadThreads(), recordsWanted(start, limit));
        this.recorded = firstPageWhileLookingUp(start);
        this.reader =
                recorded.isPresent()
                        ? ChannelBatchReader.replay(
                                readAhead,
                                partition.client(),
                                start,
                                recorded.get(),
                                ChannelBatchReader.IdleBackoff.exponential())
                        : ChannelBatchReader.firstRead(
                                readAhead, partition.client(), start, limit, System::nanoTime);
    }

    /**
     * Whether this batch ran before (its recorded end), looked up in the meta table while the
     * channel's first page is on its way: a first read and a replay both start with that page.
     */
    private Optional<ChannelCheckpoint> firstPageWhileLookingUp(ChannelCheckpoint start) {
        if (!start.position().isFinished()) {
            readAhead.readAhead(partition.client(), start.channelId(), start.position().token());
        }
        try {
            return new MetaStore(metaClient).entry(tunnelId(), endToken(), start.channelId());
        } catch (RuntimeException e) {
            readAhead.close();
            throw e;
        }
    }

    /**
     * The records after the start token this task may deliver (a replay delivers what the first run
     * did, within the same cap); pages past them are not read ahead.
     */
    private static long recordsWanted(ChannelCheckpoint start, ChannelReadLimit limit) {
        long skip = start.position().isFinished() ? 0 : start.position().skip();
        return limit.maxRecords() > Long.MAX_VALUE - skip
                ? Long.MAX_VALUE
                : limit.maxRecords() + skip;
    }

    static ChannelPartitionReader open(
            TablestoreSourceOptions options, OutputSchema schema, ChannelInputPartition partition) {
        Borrowed clients = Borrowed.from(options);
        try {
            long cap =
                    partition.maxRecords() == TablestoreOffset.UNCAPPED
                            ? Long.MAX_VALUE
                            : partition.maxRecords();
            return new ChannelPartitionReader(
                    partition,
                    clients,
                    ChangeRowConverter.of(schema, options),
                    new ChannelReadLimit(cap, options.channelReadBudget()));
        } catch (RuntimeException e) {
            clients.close();
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
        tunnelRetries += clients.tunnel().client().unreportedRetries();
        return SourceMetrics.taskValues(
                recordsRead, proxy.readRequests(), converter.skippedInvalid(), tunnelRetries);
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
            readAhead.close();
            clients.close();
        }
    }

    private String tunnelId() {
        return partition.client().tunnelId();
    }

    private BatchToken endToken() {
        return BatchToken.parse(partition.endToken());
    }

    /** The shared clients one reader borrowed; closing gives them back. */
    private record Borrowed(
            SharedClients<ClientKey, SharedTunnelClient>.Lease tunnel,
            SharedClients<ExecutorClients.MetaTableKey, SdkMetaTableClient>.Lease metaTable)
            implements AutoCloseable {

        static Borrowed from(TablestoreSourceOptions options) {
            TablestoreEndpoint endpoint = options.tablestoreEndpoint();
            SharedClients<ClientKey, SharedTunnelClient>.Lease tunnel =
                    ExecutorClients.tunnel(endpoint);
            try {
                return new Borrowed(
                        tunnel, ExecutorClients.metaTable(endpoint, options.metaTable()));
            } catch (RuntimeException e) {
                tunnel.close();
                throw e;
            }
        }

        @Override
        public void close() {
            tunnel.close();
            metaTable.close();
        }
    }
}
