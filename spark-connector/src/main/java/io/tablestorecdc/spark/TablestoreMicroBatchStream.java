package io.tablestorecdc.spark;

import io.tablestorecdc.checkpoint.consumer.CatchUpReporter;
import io.tablestorecdc.checkpoint.consumer.TunnelConsumer;
import io.tablestorecdc.checkpoint.meta.MetaTableClient;
import io.tablestorecdc.checkpoint.meta.OwnershipLostException;
import io.tablestorecdc.checkpoint.meta.PreparedSnapshot;
import io.tablestorecdc.checkpoint.meta.TunnelMeta;
import io.tablestorecdc.checkpoint.model.BatchToken;
import io.tablestorecdc.checkpoint.settings.DroppedTablePolicy;
import io.tablestorecdc.checkpoint.settings.TableSelection;
import io.tablestorecdc.checkpoint.table.SdkTableService;
import io.tablestorecdc.checkpoint.tunnel.TunnelException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
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
 * <p>Each table the source reads has its own {@link TableStream} (tunnel, owner lease, meta rows,
 * batch tokens); a Spark batch covers every table, and its offset ({@link SourceOffset}) holds each
 * table's token and plan, so that the tables commit together. A source of one table writes the
 * offset it always wrote. With {@code table.pattern}, the instance's tables are listed again every
 * {@code table.discovery.interval}: a new matching table is opened (a tunnel the source creates on
 * it starts at its earliest change) and read from the next batch on; a table that is gone is closed
 * with a log line and counted in {@code tablesDropped}.
 *
 * <p>Connects lazily, on the first call Spark makes, because Spark builds the stream before it
 * decides to run it. Spark calls these methods from its stream execution thread; they are
 * synchronized anyway.
 */
final class TablestoreMicroBatchStream
        implements MicroBatchStream, SupportsTriggerAvailableNow, ReportsSourceMetrics {

    private static final Logger LOG = LoggerFactory.getLogger(TablestoreMicroBatchStream.class);
    private static final int PLANS_CACHED = 4;
    private static final int PLANNING_THREADS = 8;
    private static final long STOP_MILLIS = 10_000;

    /** How often the tables' catch-up reports are looked at (written when due). */
    private static final Duration REPORT_EVERY = CatchUpReporter.MIN_INTERVAL;

    private final TablestoreSourceOptions options;
    private final OutputSchema schema;
    private final String checkpointLocation;
    private final boolean single;
    private final Map<PlanKey, InputPartition[]> plans =
            new LinkedHashMap<>(8, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<PlanKey, InputPartition[]> e) {
                    return size() > PLANS_CACHED;
                }
            };
    private final SortedMap<String, TableStream> tables = new TreeMap<>();

    /** Tables that were read and are gone (dropped, or no longer selected). */
    private final Set<String> dropped = new TreeSet<>();

    private boolean connected;
    private DriverResources shared;

    /** The consumers whose catch-up reports are written together, as the tables stand. */
    private volatile List<TunnelConsumer> reporting = List.of();

    private ExecutorService planning;
    private long nextDiscoveryNanos;
    private SourceOffset initial;
    private SourceOffset lastStart;
    private SourceOffset lastEnd;
    private OptionalLong availableNowCutoffMicros = OptionalLong.empty();

    TablestoreMicroBatchStream(
            TablestoreSourceOptions options, OutputSchema schema, String checkpointLocation) {
        this.options = options;
        this.schema = schema;
        this.checkpointLocation = checkpointLocation;
        this.single = options.selection().single();
    }

    private synchronized void connect() {
        if (!connected) {
            List<String> selected = SourceTables.resolve(options);
            // Tables that join after the query's first start are read from their first change.
            Set<String> atFirstStart =
                    single
                            ? Set.copyOf(selected)
                            : InitialTokenFile.ofTables(checkpointLocation, hadoopConf())
                                    .readTables()
                                    .keySet();
            if (!single) {
                planning =
                        Executors.newFixedThreadPool(
                                Math.min(PLANNING_THREADS, Math.max(1, selected.size())),
                                DaemonThreads.named(
                                        "tablestore-cdc-planning-" + options.tunnelName()));
            }
            shared = DriverResources.open(options);
            try {
                openAll(selected, atFirstStart);
            } catch (RuntimeException e) {
                closeAll(e);
                if (planning != null) {
                    planning.shutdownNow();
                    planning = null;
                }
                throw e;
            }
            if (!single) {
                reportTogether(shared);
                LOG.info(
                        "Source of tables {} reads {} table(s) through tunnel {}: {}",
                        options.tablesLabel(),
                        selected.size(),
                        options.tunnelName(),
                        selected);
            }
            nextDiscoveryNanos = System.nanoTime() + discoveryInterval().toNanos();
            connected = true;
        }
        tables.values().forEach(TableStream::checkHealthy);
    }

    /**
     * Opens every selected table's consumer, several at once (each opens its tunnel, lease and
     * session in the core's order); a table that joins after the query's first start is read from
     * its first change.
     */
    private void openAll(List<String> selected, Set<String> atFirstStart) {
        if (single) {
            String table = selected.get(0);
            tables.put(table, open(options.forTable(table)));
            return;
        }
        Map<String, TableStream> opened = new LinkedHashMap<>();
        try {
            inParallel(
                    selected,
                    table ->
                            open(
                                    !atFirstStart.isEmpty() && !atFirstStart.contains(table)
                                            ? options.forNewTable(table)
                                            : options.forTable(table)),
                    opened);
        } finally {
            tables.putAll(opened); // those opened are closed with the others on a failure
        }
    }

    private TableStream open(TablestoreSourceOptions table) {
        return TableStream.open(table, checkpointLocation, shared);
    }

    /**
     * Writes every table's due catch-up report together, every second on the shared scheduler
     * ({@link TunnelConsumer#reportAll}: one lease read, then shared batch writes), instead of one
     * write per table from each table's periodic work; nothing is sent when no report is due.
     */
    private void reportTogether(DriverResources resources) {
        reportingChanged();
        MetaTableClient metaTable = resources.metaClient();
        resources.scheduler.scheduleWithFixedDelay(
                () -> {
                    try {
                        TunnelConsumer.reportAll(metaTable, reporting);
                    } catch (OwnershipLostException e) {
                        // Kept by the consumer: the next planning call throws it (checkHealthy).
                    } catch (RuntimeException e) {
                        LOG.error(
                                "Unexpected error writing the catch-up reports of tunnel {}",
                                options.tunnelName(),
                                e);
                    }
                },
                REPORT_EVERY.toMillis(),
                REPORT_EVERY.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    /** Call after the tables read changed. */
    private void reportingChanged() {
        reporting = tables.values().stream().map(TableStream::consumer).toList();
    }

    private Duration discoveryInterval() {
        return options.selection().discoveryInterval();
    }

    @Override
    public synchronized Offset initialOffset() {
        connect();
        if (initial == null) {
            initial = single ? initialOfOne() : initialOfSeveral();
        }
        return initial.toSpark(single);
    }

    private SourceOffset initialOfOne() {
        InitialTokenFile file = new InitialTokenFile(checkpointLocation, hadoopConf());
        Optional<BatchToken> stored = file.read();
        TableStream table = tables.values().iterator().next();
        TablestoreOffset offset;
        if (stored.isPresent()) {
            offset = TablestoreOffset.initial(stored.get());
        } else {
            offset = table.seed();
            file.write(offset.token());
        }
        return SourceOffset.of(table.table(), offset);
    }

    /** Each table's stored first token; tables not seeded before are seeded now. */
    private SourceOffset initialOfSeveral() {
        InitialTokenFile file = InitialTokenFile.ofTables(checkpointLocation, hadoopConf());
        Map<String, BatchToken> stored = file.readTables();
        SortedMap<String, TablestoreOffset> offsets = new TreeMap<>();
        Map<String, BatchToken> tokens = new TreeMap<>();
        List<TableStream> unseeded =
                tables.values().stream().filter(t -> !stored.containsKey(t.table())).toList();
        Map<TableStream, TablestoreOffset> seeds = inParallel(unseeded, TableStream::seed);
        for (TableStream table : tables.values()) {
            BatchToken token = stored.get(table.table());
            if (token == null) {
                token = seeds.get(table).token();
            }
            tokens.put(table.table(), token);
            offsets.put(table.table(), TablestoreOffset.initial(token));
        }
        if (!unseeded.isEmpty()) {
            file.writeTables(tokens);
        }
        return new SourceOffset(offsets);
    }

    private static org.apache.hadoop.conf.Configuration hadoopConf() {
        return SparkSession.active().sparkContext().hadoopConfiguration();
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
     * A new offset when there is something to read (or a table to add or drop), else {@code start}
     * (no batch). Spark asks only after the batch ending at {@code start} is in its commit log, so
     * that batch is pushed to the server first (this also covers a commit Spark never called before
     * a restart).
     */
    @Override
    public synchronized Offset latestOffset(Offset startOffset, ReadLimit limit) {
        connect();
        SourceOffset start = offset(startOffset);
        if (start.equals(lastStart)) {
            // Asked again for the same start, Spark must get the same, already carried, plan.
            return lastEnd.toSpark(single);
        }
        SourceOffset end = single ? nextOfOne(start, limit) : nextOfSeveral(start, limit);
        if (!end.equals(start)) {
            lastStart = start;
            lastEnd = end;
        }
        return end.toSpark(single);
    }

    private SourceOffset nextOfOne(SourceOffset start, ReadLimit limit) {
        TableStream table = tables.values().iterator().next();
        TablestoreOffset from = start.tables().get(table.table());
        TablestoreOffset end;
        try {
            end = table.next(from, limit, availableNowCutoffMicros);
        } catch (TunnelException e) {
            throw table.stopped(e);
        }
        if (!end.equals(from)) {
            LOG.info(
                    "Planned batch {} of tunnel {}: reads {}",
                    end.batch(),
                    options.tunnelName(),
                    end.read());
        }
        return SourceOffset.of(table.table(), end);
    }

    /**
     * Every table's next offset: tables found since are added (seeded, read from the next batch),
     * tables gone are left out; the others planned together ({@link #planTogether}).
     */
    private SourceOffset nextOfSeveral(SourceOffset start, ReadLimit limit) {
        discoverIfDue();
        SortedMap<String, TablestoreOffset> end = new TreeMap<>();
        for (Map.Entry<String, TablestoreOffset> e : start.tables().entrySet()) {
            if (!tables.containsKey(e.getKey())) {
                if (dropped.add(e.getKey())) {
                    LOG.warn(
                            "Table {} is no longer read by this source (dropped, or no longer"
                                    + " selected by {}): its offset leaves the checkpoint",
                            e.getKey(),
                            options.tablesLabel());
                }
            }
        }
        List<TableStream> inStart = new ArrayList<>();
        for (TableStream table : tables.values()) {
            TablestoreOffset from = start.tables().get(table.table());
            if (from == null) {
                end.put(table.table(), table.seed());
                LOG.info("Table {} joins the source with the next batch", table.table());
            } else {
                inStart.add(table);
            }
        }
        planTogether(start, limit, inStart, end);
        SourceOffset next = new SourceOffset(end);
        if (!next.equals(start)) {
            int reading = 0;
            for (String table : end.keySet()) {
                TablestoreOffset from = start.tables().get(table);
                if (from != null && !from.equals(end.get(table))) {
                    reading++;
                }
            }
            LOG.info(
                    "Planned a batch of tunnel {} on {} of {} table(s)",
                    options.tunnelName(),
                    reading,
                    end.size());
        }
        return next;
    }

    /**
     * Every table's candidate, found in parallel; their caps computed together, so that {@code
     * max.rows.per.trigger} is split across the channels of all tables in proportion to their
     * backlogs as for the channels of one; then each table's batch planned.
     */
    private void planTogether(
            SourceOffset start,
            ReadLimit limit,
            List<TableStream> inStart,
            SortedMap<String, TablestoreOffset> end) {
        readCommitted(start, inStart);
        Map<TableStream, Optional<BatchPlanner.Candidate>> found =
                inParallel(
                        inStart,
                        table -> candidateOf(table, start.tables().get(table.table()), limit));
        List<TableStream> reading = new ArrayList<>();
        List<ChannelBacklog> backlogs = new ArrayList<>();
        for (TableStream table : inStart) {
            Optional<BatchPlanner.Candidate> candidate = found.get(table);
            TablestoreOffset from = start.tables().get(table.table());
            if (candidate == null) {
                end.put(table.table(), settle(table, from, null));
            } else if (candidate.isEmpty()) {
                end.put(table.table(), from);
            } else {
                reading.add(table);
                backlogs.addAll(candidate.get().toRead());
            }
        }
        List<Long> caps = BatchPlanner.capsInOrder(backlogs, limit, options.maxRowsPerChannel());
        Map<TableStream, SortedMap<String, Long>> capsByTable = new LinkedHashMap<>();
        int i = 0;
        for (TableStream table : reading) {
            SortedMap<String, Long> tableCaps = new TreeMap<>();
            for (ChannelBacklog backlog : found.get(table).get().toRead()) {
                tableCaps.put(backlog.entry().channelId(), caps.get(i++));
            }
            capsByTable.put(table, tableCaps);
        }
        Map<TableStream, BatchPlanner.Prepared> planned =
                inParallel(
                        reading,
                        table -> table.prepare(found.get(table).get(), capsByTable.get(table)));
        Map<TunnelConsumer, PreparedSnapshot> snapshots = new LinkedHashMap<>();
        for (TableStream table : reading) {
            snapshots.put(table.consumer(), planned.get(table).snapshot());
        }
        // Every table's snapshot in a few shared requests, fenced once: the batch's meta
        // requests do not grow with the number of tables it reads.
        TunnelConsumer.writeAll(shared.metaClient(), snapshots);
        for (TableStream table : reading) {
            end.put(table.table(), planned.get(table).end());
        }
    }

    /**
     * The committed snapshots the tables' batches start from, read together: the ends the readers
     * filled, in batch reads shared by all tables ({@link TunnelMeta#readAll}) instead of a range
     * read per table. A table whose snapshot this cannot read reads it itself while planning, and
     * fails there with its own error.
     */
    private void readCommitted(SourceOffset start, List<TableStream> inStart) {
        Map<TunnelMeta, BatchToken> wanted = new LinkedHashMap<>();
        Map<TunnelMeta, TableStream> byMeta = new LinkedHashMap<>();
        for (TableStream table : inStart) {
            BatchToken token = start.tables().get(table.table()).token();
            if (!table.knows(token)) {
                TunnelMeta meta = table.consumer().meta();
                wanted.put(meta, token);
                byMeta.put(meta, table);
            }
        }
        if (wanted.size() < 2) {
            return;
        }
        try {
            TunnelMeta.readAll(shared.metaClient(), wanted)
                    .forEach(
                            (meta, snapshot) ->
                                    byMeta.get(meta).remember(snapshot.token(), snapshot));
        } catch (RuntimeException e) {
            LOG.debug(
                    "Reading the committed snapshots of {} tables together failed",
                    wanted.size(),
                    e);
        }
    }

    /**
     * {@code work} of each table on the planning threads; see {@link #inParallel(List, Function,
     * Map)}.
     */
    private <T> Map<TableStream, T> inParallel(
            List<TableStream> tables, Function<TableStream, T> work) {
        return inParallel(tables, work, new LinkedHashMap<>());
    }

    /**
     * {@code work} of each key on the planning threads, each result (null for a table that is gone)
     * put {@code into} the map given; then the first failure is thrown, the others suppressed, once
     * every key's work has ended.
     */
    private <K, T> Map<K, T> inParallel(List<K> keys, Function<K, T> work, Map<K, T> into) {
        Map<K, CompletableFuture<T>> pending = new LinkedHashMap<>();
        for (K key : keys) {
            pending.put(key, CompletableFuture.supplyAsync(() -> work.apply(key), planning));
        }
        RuntimeException failure = null;
        for (Map.Entry<K, CompletableFuture<T>> e : pending.entrySet()) {
            try {
                into.put(e.getKey(), e.getValue().join());
            } catch (CompletionException ce) {
                RuntimeException cause = ce.getCause() instanceof RuntimeException r ? r : ce;
                if (failure == null) {
                    failure = cause;
                } else {
                    failure.addSuppressed(cause);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
        return into;
    }

    /** The table's candidate, or null when its tunnel failed because the table is gone. */
    private Optional<BatchPlanner.Candidate> candidateOf(
            TableStream table, TablestoreOffset from, ReadLimit limit) {
        try {
            return table.candidate(from, limit, availableNowCutoffMicros);
        } catch (TunnelException e) {
            if (gone(table.table())) {
                return null;
            }
            throw table.stopped(e);
        }
    }

    private boolean gone(String table) {
        try {
            return !SdkTableService.listTables(options.tablestoreEndpoint()).contains(table);
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** {@code next}, or for a table that is gone ({@code null}): closes it, keeps {@code from}. */
    private TablestoreOffset settle(
            TableStream table, TablestoreOffset from, TablestoreOffset next) {
        if (next != null) {
            return next;
        }
        drop(table.table());
        return from;
    }

    private void drop(String table) {
        if (options.selection().onDroppedTable() == DroppedTablePolicy.FAIL) {
            throw DroppedTablePolicy.dropped(table, options.instanceName());
        }
        TableStream gone = tables.remove(table);
        reportingChanged();
        dropped.add(table);
        LOG.warn(
                "Table {} is gone from instance {}: its tunnel {} ends here; what its committed"
                        + " batches held was delivered",
                table,
                options.instanceName(),
                options.tunnelName());
        try {
            gone.close();
        } catch (RuntimeException e) {
            LOG.warn("Closing the source of dropped table {} failed", table, e);
        }
    }

    /**
     * With a pattern and a discovery interval: lists the instance's tables when the interval is up;
     * opens the new matches, closes the ones gone.
     */
    private void discoverIfDue() {
        if (!options.selection().discovers() || System.nanoTime() - nextDiscoveryNanos < 0) {
            return;
        }
        nextDiscoveryNanos = System.nanoTime() + discoveryInterval().toNanos();
        List<String> existing;
        try {
            existing = SdkTableService.listTables(options.tablestoreEndpoint());
        } catch (RuntimeException e) {
            LOG.warn(
                    "Could not list the tables of instance {}, trying again in {}: {}",
                    options.instanceName(),
                    TableSelection.text(discoveryInterval()),
                    e.getMessage());
            return;
        }
        Set<String> now = new HashSet<>(existing);
        for (String table : List.copyOf(tables.keySet())) {
            if (!now.contains(table)) {
                drop(table);
            }
        }
        for (String table : existing) {
            if (tables.containsKey(table)
                    || !options.selection().selects(table, options.metaTable())) {
                continue;
            }
            SdkTableDescriber.Description described;
            try {
                described =
                        SdkTableDescriber.describeAll(options.tablestoreEndpoint(), List.of(table))
                                .get(table);
            } catch (RuntimeException e) {
                LOG.warn(
                        "Table {} matches {} but cannot be described yet, trying again in {}: {}",
                        table,
                        options.tablesLabel(),
                        TableSelection.text(discoveryInterval()),
                        e.getMessage());
                continue;
            }
            // A table of another key fails the query: skipping it would drop its changes unseen.
            SourceTables.requireFits(schema, table, described.primaryKey());
            try {
                tables.put(table, open(options.forNewTable(table)));
                reportingChanged();
                dropped.remove(table);
                LOG.info(
                        "Found table {} matching {}: reading it through tunnel {}",
                        table,
                        options.tablesLabel(),
                        options.tunnelName());
            } catch (RuntimeException e) {
                LOG.warn(
                        "Table {} matches {} but cannot be read yet, trying again in {}: {}",
                        table,
                        options.tablesLabel(),
                        TableSelection.text(discoveryInterval()),
                        e.getMessage());
            }
        }
    }

    /**
     * Trigger.AvailableNow: read what was committed before now, in as many batches as the read
     * limit needs, then report no new data so that Spark stops the query.
     */
    @Override
    public synchronized void prepareForTriggerAvailableNow() {
        availableNowCutoffMicros = OptionalLong.of(System.currentTimeMillis() * 1000);
    }

    /**
     * Channels open / waiting / finished and the commit-time lag, from the last planning; for
     * several tables the totals (the largest lag), each table's as {@code <table>.<metric>}, and
     * the tables read and dropped.
     */
    @Override
    public synchronized Map<String, String> metrics(Optional<Offset> latestConsumedOffset) {
        if (!connected) {
            return Map.of();
        }
        if (single) {
            return tables.values().iterator().next().metrics(false);
        }
        Map<String, String> metrics = new TreeMap<>();
        ChannelStatus total = ChannelStatus.NONE;
        long skipped = 0;
        for (TableStream table : tables.values()) {
            total = total.plus(table.status());
            skipped += table.channelsSkippedOnServerAhead();
            table.metrics(true).forEach((k, v) -> metrics.put(table.table() + "." + k, v));
        }
        metrics.putAll(total.asMetrics());
        metrics.put("channelsSkippedOnServerAhead", String.valueOf(skipped));
        metrics.put("tables", String.valueOf(tables.size()));
        metrics.put("tablesDropped", String.valueOf(dropped.size()));
        return metrics;
    }

    @Override
    public synchronized InputPartition[] planInputPartitions(Offset startOffset, Offset endOffset) {
        connect();
        SourceOffset start = offset(startOffset);
        SourceOffset end = offset(endOffset);
        return plans.computeIfAbsent(new PlanKey(start, end), k -> plan(start, end)).clone();
    }

    /** The batch a plan is cached for: offsets compare by value, as their JSON would. */
    private record PlanKey(SourceOffset start, SourceOffset end) {}

    private InputPartition[] plan(SourceOffset start, SourceOffset end) {
        Map<String, List<ChannelInputPartition>> byTable = new TreeMap<>();
        int channels = 0;
        for (Map.Entry<String, TablestoreOffset> e : end.tables().entrySet()) {
            TablestoreOffset to = e.getValue();
            TablestoreOffset from = start.tables().get(e.getKey());
            if (to.read().isEmpty() || from == null || from.equals(to)) {
                continue;
            }
            TableStream table = tables.get(e.getKey());
            if (table == null) {
                LOG.warn(
                        "Batch {} of table {} is not read: the table is gone",
                        to.batch(),
                        e.getKey());
                continue;
            }
            List<ChannelInputPartition> parts = table.parts(from, to);
            byTable.put(e.getKey(), parts);
            channels += parts.size();
        }
        int perPartition =
                ChannelGroupPartition.channelsPerPartition(
                        channels, options.maxChannelsPerPartition(), defaultParallelism());
        List<ChannelGroupPartition> groups = new ArrayList<>();
        byTable.forEach(
                (table, parts) ->
                        groups.addAll(ChannelGroupPartition.group(table, parts, perPartition)));
        if (single) {
            return groups.toArray(new InputPartition[0]);
        }
        // Small groups of several tables share a task, up to the same number of channels.
        return TableGroupsPartition.pack(groups, perPartition).toArray(new InputPartition[0]);
    }

    /** The Spark context's default parallelism, or 1 when no session is active here. */
    private static int defaultParallelism() {
        Option<SparkSession> session = SparkSession.getActiveSession();
        if (session.isEmpty()) {
            session = SparkSession.getDefaultSession();
        }
        return session.isEmpty() ? 1 : session.get().sparkContext().defaultParallelism();
    }

    @Override
    public PartitionReaderFactory createReaderFactory() {
        return new ChannelReaderFactory(options, schema);
    }

    @Override
    public Offset deserializeOffset(String json) {
        return SourceOffset.fromJson(json, single, single ? options.tableName() : null)
                .toSpark(single);
    }

    private SourceOffset offset(Offset offset) {
        return SourceOffset.from(offset, single, single ? options.tableName() : null);
    }

    /**
     * Spark has durably committed the batch ending at {@code end}: push each table's, and purge old
     * ones in the background ({@link BackgroundPurge}: Spark calls this on its stream thread,
     * inside the next batch's offset-log write).
     */
    @Override
    public synchronized void commit(Offset end) {
        connect();
        for (Map.Entry<String, TablestoreOffset> e : offset(end).tables().entrySet()) {
            TableStream table = tables.get(e.getKey());
            if (table == null) {
                continue;
            }
            try {
                table.commit(e.getValue());
            } catch (TunnelException failure) {
                throw table.stopped(failure);
            }
        }
    }

    @Override
    public synchronized void stop() {
        if (connected) {
            connected = false;
            if (planning != null) {
                planning.shutdown();
                try {
                    planning.awaitTermination(STOP_MILLIS, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            RuntimeException failure = closeAll(null);
            if (failure != null) {
                throw failure;
            }
        }
    }

    /**
     * Closes every table's source (each even when one before failed), then the clients and threads
     * they shared.
     */
    private RuntimeException closeAll(RuntimeException failure) {
        for (TableStream table : tables.values()) {
            try {
                table.close();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        tables.clear();
        reporting = List.of();
        if (shared != null) {
            try {
                shared.close();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
            shared = null;
        }
        return failure;
    }

    @Override
    public String toString() {
        return "TablestoreMicroBatchStream[table="
                + options.tablesLabel()
                + ", tunnel="
                + options.tunnelName()
                + "]";
    }
}
