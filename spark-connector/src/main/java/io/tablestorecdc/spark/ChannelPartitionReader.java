package io.tablestorecdc.spark;

import io.tablestorecdc.checkpoint.meta.BatchFills;
import io.tablestorecdc.checkpoint.meta.MetaTable;
import io.tablestorecdc.checkpoint.meta.SdkMetaTableClient;
import io.tablestorecdc.checkpoint.model.BatchToken;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.model.TablestoreEndpoint;
import io.tablestorecdc.checkpoint.read.ChannelBatchReader;
import io.tablestorecdc.checkpoint.read.ChannelReadLimit;
import io.tablestorecdc.checkpoint.read.TunnelPages;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the channels of one {@link ChannelGroupPartition} of one batch on an executor, one after
 * another, and records where each ended.
 *
 * <p>If the end snapshot already holds a channel's entry, the batch ran before (task retry,
 * speculative attempt, re-run after a restart, a second action on a {@code foreachBatch} frame):
 * the reader replays exactly the recorded number of records of that channel (invariant 1). The
 * other channels are read up to their limits (each its own record cap and {@code
 * channel.read.budget}), and their entries are filled together, conditionally, when the last
 * channel is done; an entry written meanwhile by another attempt with different content fails this
 * task (invariant 2), and Spark's retry then replays. All entries of the group are looked up with
 * one range read and filled with batch writes, so a task costs a few meta-table requests however
 * many channels it reads.
 *
 * <p>The SDK clients are borrowed from this JVM's {@link ExecutorClients} and given back at {@link
 * #close()}, never shut down here.
 */
final class ChannelPartitionReader implements PartitionReader<InternalRow> {

    private static final Logger LOG = LoggerFactory.getLogger(ChannelPartitionReader.class);

    private final ChannelGroupPartition group;
    private final Borrowed clients;
    private final TunnelPages pages;
    private final SdkMetaTableClient metaClient;
    private final Duration budget;
    private final Map<String, ChannelCheckpoint> recorded;
    private final List<ChannelCheckpoint> ends = new ArrayList<>();
    private final ChangeRowConverter converter;
    private ChannelBatchReader reader;
    private int nextChannel;
    private InternalRow current;
    private long recordsRead;
    private long tunnelRetries;
    private final boolean fillsDeferred;
    private boolean done;
    private boolean failed;

    private ChannelPartitionReader(
            ChannelGroupPartition group,
            Borrowed clients,
            ChangeRowConverter converter,
            Duration budget,
            Optional<Map<String, ChannelCheckpoint>> recorded,
            boolean fillsDeferred) {
        this.group = group;
        this.clients = clients;
        this.pages =
                TunnelPages.readingAhead(
                        clients.tunnel().client().proxy(), ExecutorClients.readAheadThreads());
        this.metaClient = clients.metaTable().client();
        this.converter = converter;
        this.budget = budget;
        this.fillsDeferred = fillsDeferred;
        this.recorded = firstPageWhileLookingUp(recorded);
    }

    /**
     * The channels of this group whose batch ran before (their recorded ends), looked up in the
     * meta table while the first channel's first page is on its way: a first read and a replay both
     * start with that page. Ends a task looked up for all its groups at once are not looked up
     * again.
     */
    private Map<String, ChannelCheckpoint> firstPageWhileLookingUp(
            Optional<Map<String, ChannelCheckpoint>> known) {
        ChannelInputPartition first = first();
        ChannelCheckpoint start = first.start().toCheckpoint();
        pages.readAhead(first.client(), start.channelId(), start.position());
        if (known.isPresent()) {
            return known.get();
        }
        List<String> ids = new ArrayList<>();
        group.channels().forEach(c -> ids.add(c.start().channelId()));
        try {
            return new MetaTable(metaClient).tunnel(tunnelId()).entries(endToken(), ids);
        } catch (RuntimeException e) {
            pages.close();
            throw e;
        }
    }

    /** The channel ids of {@code group}, with the tunnel and batch they belong to. */
    static List<BatchFills.Key> keys(ChannelGroupPartition group) {
        List<BatchFills.Key> keys = new ArrayList<>();
        for (ChannelInputPartition part : group.channels()) {
            keys.add(
                    new BatchFills.Key(
                            part.client().tunnelId(),
                            BatchToken.parse(part.endToken()),
                            part.start().channelId()));
        }
        return keys;
    }

    private ChannelReadLimit limitOf(ChannelInputPartition part) {
        long cap =
                part.maxRecords() == TablestoreOffset.UNCAPPED ? Long.MAX_VALUE : part.maxRecords();
        return new ChannelReadLimit(cap, budget);
    }

    /** Starts reading the next channel; its budget starts now. */
    private void openChannel() {
        ChannelInputPartition part = group.channels().get(nextChannel);
        ChannelCheckpoint start = part.start().toCheckpoint();
        ChannelCheckpoint end = recorded.get(start.channelId());
        reader =
                end != null
                        ? ChannelBatchReader.replay(
                                pages,
                                part.client(),
                                start,
                                end,
                                ChannelBatchReader.IdleBackoff.exponential())
                        : ChannelBatchReader.firstRead(
                                pages, part.client(), start, limitOf(part), System::nanoTime);
    }

    /** A reader of a group of just {@code part}, of the one table of {@code options}. */
    static ChannelPartitionReader open(
            TablestoreSourceOptions options, OutputSchema schema, ChannelInputPartition part) {
        return open(options, schema, new ChannelGroupPartition(options.tableName(), List.of(part)));
    }

    /** A reader of {@code group}, of one of the tables {@code options} select. */
    static ChannelPartitionReader open(
            TablestoreSourceOptions options, OutputSchema schema, ChannelGroupPartition group) {
        return open(options, schema, group, Optional.empty(), false);
    }

    /**
     * A reader of {@code group}, of one of the tables {@code options} select.
     *
     * @param recorded the group's recorded ends, when the task looked them up already
     * @param fillsDeferred whether the ends of channels read afresh are left to the caller ({@link
     *     #unfilledEnds()}) instead of filled when the group ends
     */
    static ChannelPartitionReader open(
            TablestoreSourceOptions options,
            OutputSchema schema,
            ChannelGroupPartition group,
            Optional<Map<String, ChannelCheckpoint>> recorded,
            boolean fillsDeferred) {
        TablestoreSourceOptions table = options.forTable(group.table());
        Borrowed clients = Borrowed.from(table);
        try {
            return new ChannelPartitionReader(
                    group,
                    clients,
                    ChangeRowConverter.of(schema, table),
                    table.channelReadBudget(),
                    recorded,
                    fillsDeferred);
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
                if (!advance()) {
                    finish();
                    return false;
                }
                recordsRead++;
                Optional<InternalRow> row = converter.convertCurrent(reader);
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

    /**
     * Moves to the next record of the group, on to the next channel when one is done; false at the
     * group's end. The record is converted only when asked for.
     */
    private boolean advance() {
        while (true) {
            if (reader == null) {
                if (nextChannel == group.channels().size()) {
                    return false;
                }
                openChannel();
            }
            if (reader.advance()) {
                return true;
            }
            channelDone();
        }
    }

    /** A first read's end is kept for the group's fill; a replay's end is the recorded one. */
    private void channelDone() {
        String channelId = group.channels().get(nextChannel).start().channelId();
        if (!recorded.containsKey(channelId)) {
            ends.add(reader.endCheckpoint());
        }
        pages.drop();
        reader = null;
        nextChannel++;
    }

    @Override
    public InternalRow get() {
        return current;
    }

    /**
     * Records the ends of the channels read afresh, in as few requests as possible; when fills are
     * deferred, the caller records them ({@link #unfilledEnds()}).
     */
    private void finish() {
        done = true;
        if (!ends.isEmpty() && !fillsDeferred) {
            new MetaTable(metaClient).tunnel(tunnelId()).fillAll(endToken(), ends);
        }
    }

    /**
     * With fills deferred, the ends of the channels this group read afresh, once it read them all
     * (empty before): the caller must record them before the task succeeds.
     */
    List<BatchFills.End> unfilledEnds() {
        if (!done || !fillsDeferred) {
            return List.of();
        }
        List<BatchFills.End> out = new ArrayList<>(ends.size());
        ends.forEach(e -> out.add(new BatchFills.End(tunnelId(), endToken(), e)));
        return out;
    }

    @Override
    public CustomTaskMetric[] currentMetricsValues() {
        tunnelRetries += clients.tunnel().client().unreportedRetries();
        return SourceMetrics.taskValues(
                recordsRead, pages.readRequests(), converter.skippedInvalid(), tunnelRetries);
    }

    /**
     * A consumer that stops pulling early (for example {@code limit}) still completes the batch:
     * the rest of the group's part is read and recorded, so that the end snapshot is complete.
     */
    @Override
    public void close() {
        try {
            if (!done && !failed && !Thread.currentThread().isInterrupted()) {
                while (advance()) {
                    recordsRead++;
                }
                finish();
            }
        } catch (RuntimeException e) {
            LOG.warn(
                    "Could not complete {} of batch {} after the consumer stopped early;"
                            + " the batch is replayed when it runs again: {}",
                    group,
                    endTokenText(),
                    e.getMessage());
        } finally {
            pages.close();
            clients.close();
        }
    }

    private ChannelInputPartition first() {
        return group.channels().get(0);
    }

    private String endTokenText() {
        return first().endToken();
    }

    private String tunnelId() {
        return first().client().tunnelId();
    }

    private BatchToken endToken() {
        return BatchToken.parse(endTokenText());
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
