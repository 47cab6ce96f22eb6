package io.tablestorecdc.spark;

import io.tablestorecdc.checkpoint.model.BatchSnapshot;
import io.tablestorecdc.checkpoint.model.BatchToken;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.tunnel.TunnelException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream;
import org.apache.spark.sql.connector.read.streaming.Offset;
import org.apache.spark.sql.connector.read.streaming.ReadLimit;
import org.apache.spark.sql.connector.read.streaming.ReportsSourceMetrics;
import org.apache.spark.sql.connector.read.streaming.SupportsTriggerAvailableNow;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Option;

/**
 * The driver side of the source (docs/design.md, "Spark"): batch tokens as offsets, plans per
 * (start, end), commits pushed to the tunnel server one step later.
 *
 * <p>Connects lazily, on the first call Spark makes, because Spark builds the stream before it
 * decides to run it. Spark calls these methods from its stream execution thread; they are
 * synchronized anyway.
 */
final class TablestoreMicroBatchStream
        implements MicroBatchStream, SupportsTriggerAvailableNow, ReportsSourceMetrics {

    private static final Logger LOG = LoggerFactory.getLogger(TablestoreMicroBatchStream.class);
    private static final int PLANS_CACHED = 4;

    private final TablestoreSourceOptions options;
    private final OutputSchema schema;
    private final String checkpointLocation;
    private final Map<PlanKey, InputPartition[]> plans =
            new LinkedHashMap<>(8, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<PlanKey, InputPartition[]> e) {
                    return size() > PLANS_CACHED;
                }
            };
    private SourceConnection connection;
    private BatchPlanner planner;
    private ServerProgress progress;
    private BackgroundPurge purge;
    private TablestoreOffset initial;
    private TablestoreOffset lastStart;
    private TablestoreOffset lastEnd;
    private OptionalLong availableNowCutoffMicros = OptionalLong.empty();

    TablestoreMicroBatchStream(
            TablestoreSourceOptions options, OutputSchema schema, String checkpointLocation) {
        this.options = options;
        this.schema = schema;
        this.checkpointLocation = checkpointLocation;
    }

    private synchronized SourceConnection connection() {
        if (connection == null) {
            connection = SourceConnection.open(options, checkpointLocation);
            planner = new BatchPlanner(connection, options);
            progress =
                    new ServerProgress(
                            connection, options.tunnelName(), options.serverProgressInterval());
            purge =
                    new BackgroundPurge(
                            connection.meta(),
                            options.metaRetentionBatches(),
                            options.tunnelName());
        }
        connection.checkHealthy();
        return connection;
    }

    @Override
    public synchronized Offset initialOffset() {
        connection();
        if (initial == null) {
            InitialTokenFile file =
                    new InitialTokenFile(
                            checkpointLocation,
                            SparkSession.active().sparkContext().hadoopConfiguration());
            Optional<BatchToken> stored = file.read();
            if (stored.isPresent()) {
                initial = TablestoreOffset.initial(stored.get());
            } else {
                initial = planner.seed();
                file.write(initial.token());
            }
        }
        return initial.toSpark();
    }

    @Override
    public Offset latestOffset() {
        throw new UnsupportedOperationException(
                "tablestore-cdc supports admission control: Spark calls latestOffset(start, limit)");
    }

    /**
     * {@code min.rows.per.trigger} with {@code max.trigger.delay}, {@code max.rows.per.trigger}.
     */
    @Override
    public ReadLimit getDefaultReadLimit() {
        List<ReadLimit> limits = new ArrayList<>();
        options.minRowsPerTrigger()
                .ifPresent(
                        min ->
                                limits.add(
                                        ReadLimit.minRows(
                                                min, options.maxTriggerDelay().toMillis())));
        options.maxRowsPerTrigger().ifPresent(max -> limits.add(ReadLimit.maxRows(max)));
        return switch (limits.size()) {
            case 0 -> ReadLimit.allAvailable();
            case 1 -> limits.get(0);
            default -> ReadLimit.compositeLimit(limits.toArray(new ReadLimit[0]));
        };
    }

    /**
     * A new token when there is something to read, else {@code start} (no batch). Spark asks only
     * after the batch ending at {@code start} is in its commit log, so that batch is pushed to the
     * server first (this also covers a commit Spark never called before a restart).
     */
    @Override
    public synchronized Offset latestOffset(Offset startOffset, ReadLimit limit) {
        try {
            return nextOffset(startOffset, limit);
        } catch (TunnelException e) {
            throw stopped(e);
        }
    }

    private Offset nextOffset(Offset startOffset, ReadLimit limit) {
        connection();
        TablestoreOffset start = TablestoreOffset.from(startOffset);
        if (start.equals(lastStart)) {
            return lastEnd.toSpark();
        }
        pushCommitted(start);
        TablestoreOffset end = planner.next(start, limit, availableNowCutoffMicros);
        if (!end.equals(start)) {
            // Asked again for the same start, Spark must get the same, already carried, plan.
            lastStart = start;
            lastEnd = end;
            LOG.info(
                    "Planned batch {} of tunnel {}: reads {}",
                    end.batch(),
                    options.tunnelName(),
                    end.read());
        }
        return end.toSpark();
    }

    /**
     * Trigger.AvailableNow: read what was committed before now, in as many batches as the read
     * limit needs, then report no new data so that Spark stops the query.
     */
    @Override
    public synchronized void prepareForTriggerAvailableNow() {
        availableNowCutoffMicros = OptionalLong.of(System.currentTimeMillis() * 1000);
    }

    /** Channels open / waiting / finished and the commit-time lag, from the last planning. */
    @Override
    public synchronized Map<String, String> metrics(Optional<Offset> latestConsumedOffset) {
        if (planner == null) {
            return Map.of();
        }
        Map<String, String> metrics = new TreeMap<>(planner.status().asMetrics());
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

    @Override
    public synchronized InputPartition[] planInputPartitions(Offset startOffset, Offset endOffset) {
        connection();
        TablestoreOffset start = TablestoreOffset.from(startOffset);
        TablestoreOffset end = TablestoreOffset.from(endOffset);
        return plans.computeIfAbsent(new PlanKey(start, end), k -> plan(start, end)).clone();
    }

    /** The batch a plan is cached for: offsets compare by value, as their JSON would. */
    private record PlanKey(TablestoreOffset start, TablestoreOffset end) {}

    private InputPartition[] plan(TablestoreOffset start, TablestoreOffset end) {
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
        int perPartition =
                ChannelGroupPartition.channelsPerPartition(
                        parts.size(), options.maxChannelsPerPartition(), defaultParallelism());
        return ChannelGroupPartition.group(parts, perPartition).toArray(new InputPartition[0]);
    }

    /** The Spark context's default parallelism, or 1 when no session is active here. */
    private static int defaultParallelism() {
        Option<SparkSession> session = SparkSession.getActiveSession();
        if (session.isEmpty()) {
            session = SparkSession.getDefaultSession();
        }
        return session.isEmpty() ? 1 : session.get().sparkContext().defaultParallelism();
    }

    private IllegalStateException notInStart(
            TablestoreOffset start, TablestoreOffset end, String channelId) {
        return new IllegalStateException(
                "Batch "
                        + end.batch()
                        + " reads channel "
                        + channelId
                        + ", which the snapshot of its start token "
                        + start.token()
                        + " does not hold: the meta table does not belong to this checkpoint."
                        + " Point meta.table at the table this query wrote, or use a new"
                        + " checkpoint location.");
    }

    @Override
    public PartitionReaderFactory createReaderFactory() {
        return new ChannelReaderFactory(options, schema);
    }

    @Override
    public Offset deserializeOffset(String json) {
        return TablestoreOffset.fromJson(json).toSpark();
    }

    /**
     * Spark has durably committed the batch ending at {@code end}: push it, and purge old ones in
     * the background ({@link BackgroundPurge}: Spark calls this on its stream thread, inside the
     * next batch's offset-log write).
     */
    @Override
    public synchronized void commit(Offset end) {
        try {
            connection();
            pushCommitted(TablestoreOffset.from(end));
        } catch (TunnelException e) {
            throw stopped(e);
        }
        purge.request();
    }

    /**
     * The tunnel's error with the query's table and tunnel named, as a user configured them; a
     * client the server no longer knows because another query or job took the tunnel over is
     * reported as the lost lease ({@code OwnershipLostException}).
     */
    private RuntimeException stopped(TunnelException e) {
        RuntimeException explained = connection == null ? e : connection.consumer().explain(e);
        if (explained != e) {
            return explained;
        }
        return new IllegalStateException(
                "tablestore-cdc source on tunnel '"
                        + options.tunnelName()
                        + "' of table '"
                        + options.tableName()
                        + "' stopped ("
                        + e.kind()
                        + "): "
                        + e.getMessage(),
                e);
    }

    private void pushCommitted(TablestoreOffset committed) {
        if (committed.batch() > 0) {
            progress.pushCommitted(planner.snapshot(committed.token()));
        }
    }

    @Override
    public synchronized void stop() {
        if (connection != null) {
            purge.close();
            progress.close();
            connection.close();
            connection = null;
        }
    }

    @Override
    public String toString() {
        return "TablestoreMicroBatchStream[table="
                + options.tableName()
                + ", tunnel="
                + options.tunnelName()
                + "]";
    }
}
