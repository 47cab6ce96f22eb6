package io.tablestorecdc.spark;

import io.tablestorecdc.checkpoint.consumer.TunnelConsumer;
import io.tablestorecdc.checkpoint.lifecycle.CloseSequence;
import io.tablestorecdc.checkpoint.model.BatchSnapshot;
import io.tablestorecdc.checkpoint.model.BatchToken;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.tunnel.TunnelException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.TreeMap;
import org.apache.spark.sql.connector.read.streaming.ReadLimit;

/**
 * The driver side of one table of the source: its tunnel's consumer ({@link SourceConnection}), the
 * planner of its batches, the pushes of its committed batches and the purge of its old meta rows. A
 * source of one table has one; a source of several tables has one per table, each with its own
 * tunnel, meta rows and batch tokens, planned and committed together by {@link
 * TablestoreMicroBatchStream}.
 */
final class TableStream implements AutoCloseable {

    private final TablestoreSourceOptions options;
    private final SourceConnection connection;
    private final BatchPlanner planner;
    private final ServerProgress progress;
    private final BackgroundPurge purge;

    /** The committed batch whose records were counted last, and the counts. */
    private BatchToken counted;

    private long recordsRead;
    private long recordsInLastBatch;

    private TableStream(TablestoreSourceOptions options, SourceConnection connection) {
        this.options = options;
        this.connection = connection;
        this.planner = new BatchPlanner(connection, options);
        this.progress =
                new ServerProgress(
                        connection, options.serverProgressInterval(), connection.shared().pushes);
        this.purge =
                new BackgroundPurge(
                        connection.meta(),
                        options.metaRetentionBatches(),
                        connection.shared().purges);
    }

    /**
     * Opens the consumer of {@code options}' one table (the core's open order: meta table, tunnel,
     * owner lease, session) on the query's {@code shared} clients and threads.
     */
    static TableStream open(
            TablestoreSourceOptions options, String consumerId, DriverResources shared) {
        return new TableStream(options, SourceConnection.open(options, consumerId, shared));
    }

    String table() {
        return options.tableName();
    }

    /** Throws the error that stopped this table's consumer (lost lease, expired tunnel), if any. */
    void checkHealthy() {
        connection.checkHealthy();
    }

    /** Seeds the first snapshot of this table from the server's checkpoints. */
    TablestoreOffset seed() {
        return planner.seed();
    }

    /**
     * Pushes the batch ending at {@code start} (Spark has committed it), then plans the next one:
     * its end, or {@code start} itself when this table has nothing to read.
     */
    TablestoreOffset next(TablestoreOffset start, ReadLimit limit, OptionalLong cutoffMicros) {
        pushCommitted(start);
        return planner.next(start, limit, cutoffMicros);
    }

    /**
     * Pushes the batch ending at {@code start} (Spark has committed it), then finds what the next
     * batch of this table would read, for a source of several tables to cap with the others.
     */
    Optional<BatchPlanner.Candidate> candidate(
            TablestoreOffset start, ReadLimit limit, OptionalLong cutoffMicros) {
        pushCommitted(start);
        count(start);
        return planner.candidate(start, limit, cutoffMicros);
    }

    /**
     * Counts the records the committed batch ending at {@code committed} read from this table,
     * once: the end entries its readers recorded ({@code batchRecords}; skipped and ignored records
     * included), from the snapshot the planning reads anyway.
     */
    private synchronized void count(TablestoreOffset committed) {
        if (committed.batch() == 0 || committed.token().equals(counted)) {
            return;
        }
        BatchSnapshot snapshot = planner.snapshot(committed.token());
        long records = 0;
        for (String channelId : committed.read().keySet()) {
            records += snapshot.channel(channelId).map(ChannelCheckpoint::batchRecords).orElse(0L);
        }
        recordsRead += records;
        recordsInLastBatch = records;
        counted = committed.token();
    }

    /** Plans {@code candidate} of this table with {@code caps}. */
    TablestoreOffset plan(BatchPlanner.Candidate candidate, SortedMap<String, Long> caps) {
        return planner.plan(candidate, caps);
    }

    /**
     * {@link #plan}, with the snapshot prepared, not written (see {@link BatchPlanner#prepare}).
     */
    BatchPlanner.Prepared prepare(BatchPlanner.Candidate candidate, SortedMap<String, Long> caps) {
        return planner.prepare(candidate, caps);
    }

    /** Whether the committed snapshot of {@code token} is in memory. */
    boolean knows(BatchToken token) {
        return planner.knows(token);
    }

    /** Keeps the committed snapshot of {@code token}, read with other tables' snapshots. */
    void remember(BatchToken token, BatchSnapshot snapshot) {
        planner.remember(token, snapshot);
    }

    /** The table's tunnel consumer. */
    TunnelConsumer consumer() {
        return connection.consumer();
    }

    /** The channel parts of the batch from {@code start} to {@code end} of this table. */
    List<ChannelInputPartition> parts(TablestoreOffset start, TablestoreOffset end) {
        BatchSnapshot committed = planner.snapshot(start.token());
        List<ChannelInputPartition> parts = new ArrayList<>();
        for (Map.Entry<String, Long> read : end.read().entrySet()) {
            ChannelCheckpoint from =
                    committed
                            .channel(read.getKey())
                            .orElseThrow(() -> notInStart(start, end, read.getKey()));
            parts.add(
                    new ChannelInputPartition(
                            connection.clientId(),
                            ChannelStart.of(from),
                            end.token().toString(),
                            read.getValue()));
        }
        return parts;
    }

    private IllegalStateException notInStart(
            TablestoreOffset start, TablestoreOffset end, String channelId) {
        return new IllegalStateException(
                "Batch "
                        + end.batch()
                        + " of table '"
                        + table()
                        + "' reads channel "
                        + channelId
                        + ", which the snapshot of its start token "
                        + start.token()
                        + " does not hold: the meta table does not belong to this checkpoint."
                        + " Point meta.table at the table this query wrote, or use a new"
                        + " checkpoint location.");
    }

    /** Spark has durably committed the batch ending at {@code end}: push it, purge old ones. */
    void commit(TablestoreOffset end) {
        pushCommitted(end);
        purge.request();
    }

    private void pushCommitted(TablestoreOffset committed) {
        if (committed.batch() > 0) {
            progress.pushCommitted(planner.snapshot(committed.token()));
        }
    }

    /** What the last planning saw of this table's channels. */
    ChannelStatus status() {
        return planner.status();
    }

    /**
     * Channels open / waiting / finished and the commit-time lag, from the last planning; with
     * {@code records}, the records read from this table since the query started and in its last
     * committed batch.
     */
    Map<String, String> metrics(boolean records) {
        Map<String, String> metrics = new TreeMap<>(planner.status().asMetrics());
        if (records) {
            synchronized (this) {
                metrics.put("recordsRead", String.valueOf(recordsRead));
                metrics.put("recordsInLastBatch", String.valueOf(recordsInLastBatch));
            }
        }
        metrics.put(
                "channelsSkippedOnServerAhead",
                String.valueOf(connection.channelsSkippedOnServerAhead()));
        if (options.minRowsPerTrigger().isPresent()) {
            metrics.put(
                    "batchHeldMillis",
                    String.valueOf(planner.admission().lastBatchHeld().toMillis()));
        }
        return metrics;
    }

    int channelsSkippedOnServerAhead() {
        return connection.channelsSkippedOnServerAhead();
    }

    /**
     * The tunnel's error with the table and tunnel named, as a user configured them; a client the
     * server no longer knows because another query or job took the tunnel over is reported as the
     * lost lease ({@code OwnershipLostException}).
     */
    RuntimeException stopped(TunnelException e) {
        RuntimeException explained = connection.consumer().explain(e);
        if (explained != e) {
            return explained;
        }
        return new IllegalStateException(
                "tablestore-cdc source on tunnel '"
                        + options.tunnelName()
                        + "' of table '"
                        + table()
                        + "' stopped ("
                        + e.kind()
                        + "): "
                        + e.getMessage(),
                e);
    }

    /** Flushes the last push and closes the consumer, so that the next one can start at once. */
    @Override
    public void close() {
        CloseSequence.of("the source of table '" + table() + "'")
                .then("stop the purge", purge::close)
                .then("push the last committed batch", progress::close)
                .then("close the connection", connection::close)
                .finish();
    }
}
