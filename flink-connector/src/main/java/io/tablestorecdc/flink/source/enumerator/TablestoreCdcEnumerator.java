package io.tablestorecdc.flink.source.enumerator;

import io.tablestorecdc.checkpoint.consumer.CatchUpReporter;
import io.tablestorecdc.checkpoint.consumer.TunnelConsumer;
import io.tablestorecdc.checkpoint.gate.ServerCommitPlan;
import io.tablestorecdc.checkpoint.lifecycle.ClassPreload;
import io.tablestorecdc.checkpoint.lifecycle.CloseSequence;
import io.tablestorecdc.checkpoint.meta.ForwardingMetaTableClient;
import io.tablestorecdc.checkpoint.meta.MetaTableClient;
import io.tablestorecdc.checkpoint.settings.DroppedTablePolicy;
import io.tablestorecdc.checkpoint.settings.TableSelection;
import io.tablestorecdc.checkpoint.settings.TunnelCreation;
import io.tablestorecdc.checkpoint.table.SdkTableService;
import io.tablestorecdc.checkpoint.tunnel.ForwardingTunnelProxy;
import io.tablestorecdc.checkpoint.tunnel.TunnelProxy;
import io.tablestorecdc.flink.source.MetaTableClientFactory;
import io.tablestorecdc.flink.source.TunnelMetricGauges;
import io.tablestorecdc.flink.source.TunnelProxyFactory;
import io.tablestorecdc.flink.source.config.TablestoreCdcSourceConfig;
import io.tablestorecdc.flink.source.event.ChannelsFinishedEvent;
import io.tablestorecdc.flink.source.event.ChannelsStoppedEvent;
import io.tablestorecdc.flink.source.event.CommittedPositionsEvent;
import io.tablestorecdc.flink.source.event.TablesReadEvent;
import io.tablestorecdc.flink.source.event.TunnelClientEvent;
import io.tablestorecdc.flink.source.split.ChannelSplit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.VisibleForTesting;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.util.FlinkRuntimeException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The enumerator of a Tablestore CDC source: one {@link TableEnumerator} per table read, each the
 * tunnel client of its table (its own tunnel, lease, meta rows and state), sharing the source's
 * readers and one SDK tunnel client and meta table client for the instance.
 *
 * <p>A source of one table is its table's enumerator, with the splits, events, state and metrics it
 * always had. In a source of several tables a split names its table ({@code <table>/<channel id>}),
 * each table's metrics are under {@code table.<name>}, the checkpointed state holds each table's
 * state by name, and one checkpoint covers every table's channels. With a pattern, the instance's
 * tables are listed every {@code table.discovery.interval}: a new match is read from its earliest
 * change, and a table that is gone is closed and counted in {@code tablesDropped}, its splits ended
 * in the readers.
 *
 * <p>Coordinator thread only, but the listing, which runs on the worker thread.
 */
@Internal
public final class TablestoreCdcEnumerator
        implements SplitEnumerator<ChannelSplit, EnumeratorState> {

    private static final Logger LOG = LoggerFactory.getLogger(TablestoreCdcEnumerator.class);

    /** The metric group of one table of a source of several: {@code table.<name>}. */
    public static final String TABLE_GROUP = "table";

    /** How many tables' tunnels are opened, and owner rows read, at once. */
    static final int TABLES_AT_ONCE = 8;

    /** The jars of the connector and of the Tablestore SDK (one jar when shaded). */
    private static final List<Class<?>> CLOSE_PATH_ANCHORS =
            List.of(
                    TablestoreCdcEnumerator.class,
                    com.alicloud.openservices.tablestore.TunnelClient.class);

    /** What closing the enumerator may load: the core, this package, the SDK's close path. */
    private static final List<String> CLOSE_PATH =
            Stream.concat(
                            Stream.of(ClassPreload.CORE, "io/tablestorecdc/flink/source/"),
                            ClassPreload.SDK_CLOSE_PATH.stream())
                    .collect(Collectors.toList());

    private final SplitEnumeratorContext<ChannelSplit> context;
    private final TablestoreCdcSourceConfig config;
    private final TunnelProxyFactory proxyFactory;
    private final MetaTableClientFactory metaFactory;
    private final String consumerId;
    private final EnumeratorState restored;
    private final boolean several;
    private final Map<String, TableEnumerator> tables = new TreeMap<>();

    /** Tables read before and no longer (dropped, or no longer selected). */
    private final Set<String> dropped = new TreeSet<>();

    private final Map<String, MetricGroup> tableGroups = new TreeMap<>();
    private TunnelProxy proxy;
    private MetaTableClient metaClient;

    /** With several tables: opens their tunnels and reads their owner rows, 8 at a time. */
    private ExecutorService tablesAtOnce;

    private boolean noMoreSplits;
    private boolean closed;

    public TablestoreCdcEnumerator(
            SplitEnumeratorContext<ChannelSplit> context,
            TablestoreCdcSourceConfig config,
            TunnelProxyFactory proxyFactory,
            MetaTableClientFactory metaFactory,
            String consumerId,
            EnumeratorState restored) {
        this.context = context;
        this.config = config;
        this.proxyFactory = proxyFactory;
        this.metaFactory = metaFactory;
        this.consumerId = consumerId;
        this.restored = restored;
        this.several = config.readsSeveralTables();
        requireStateOfThisKind();
    }

    /**
     * Refuses state of the other kind: a source of one table restored from the state of several, or
     * the reverse, would lose the place of every table but one.
     */
    private void requireStateOfThisKind() {
        String selection = config.settings().selection().describe();
        if (several && restored.ofOneTable()) {
            throw new IllegalArgumentException(
                    "The state was taken by a source of one table, but this source reads "
                            + selection
                            + ". Restore it with that one table in table.name, or start the"
                            + " source of several tables without state (its tables' tunnels"
                            + " must not be read by another job).");
        }
        if (!several && restored.ofSeveralTables()) {
            throw new IllegalArgumentException(
                    "The state was taken by a source of several tables ("
                            + String.join(", ", restored.tables().keySet())
                            + "), but this source reads "
                            + selection
                            + ". Restore it with the same table.name or table.pattern, or start"
                            + " without state.");
        }
    }

    @Override
    public void start() {
        // Flink may close the job's classloader while close() still runs (see ClassPreload).
        ClassPreload.load(CLOSE_PATH_ANCHORS, CLOSE_PATH);
        proxy =
                TunnelMetricGauges.registerOn(context.metricGroup())
                        .track(proxyFactory.create(config));
        try {
            metaClient = metaFactory.create(config);
        } catch (RuntimeException e) {
            proxy.close();
            proxy = null;
            throw e;
        }
        if (!several) {
            open(config.tableName(), config, restored);
            return;
        }
        context.metricGroup().gauge("tables", tables::size);
        context.metricGroup().gauge("tablesDropped", dropped::size);
        tablesAtOnce =
                Executors.newFixedThreadPool(
                        TABLES_AT_ONCE,
                        r -> {
                            Thread t = new Thread(r, "tablestore-cdc-tables");
                            t.setDaemon(true);
                            return t;
                        });
        List<String> selected = config.settings().selectedTables(this::listTables);
        Map<String, TableEnumerator> opening = new TreeMap<>();
        for (String table : selected) {
            EnumeratorState state = restored.tables().get(table);
            if (state != null || !restored.ofSeveralTables()) {
                opening.put(
                        table,
                        create(
                                table,
                                config.forTable(table),
                                Optional.ofNullable(state).orElseGet(EnumeratorState::initial)));
            } else {
                // Joined after the first start (created or added while the job was down): read
                // from its earliest change, as a table found while running is.
                LOG.info(
                        "Table {} is new to the restored state: reading it through tunnel {} from"
                                + " its earliest change",
                        table,
                        config.tunnelName());
                opening.put(
                        table, create(table, config.forNewTable(table), EnumeratorState.initial()));
            }
        }
        // The tables' tunnels are opened at once; a table that cannot be opened fails the start.
        tables.putAll(opening);
        inParallel(opening.values(), TableEnumerator::connect);
        opening.values().forEach(TableEnumerator::begin);
        for (String table : restored.tables().keySet()) {
            if (!tables.containsKey(table)) {
                requireDropsAllowed(table);
                dropped.add(table);
                LOG.warn(
                        "The state holds table {}, which {} no longer selects: its changes are not"
                                + " read any more",
                        table,
                        config.settings().selection().describe());
            }
        }
        LOG.info(
                "Tablestore CDC source reads {} table(s) through tunnel {}: {}",
                tables.size(),
                config.tunnelName(),
                tables.keySet());
        if (discovers()) {
            long interval = config.settings().selection().discoveryInterval().toMillis();
            context.callAsync(this::listTables, this::onListing, interval, interval);
        }
        long reportEvery = CatchUpReporter.MIN_INTERVAL.toMillis();
        context.callAsync(() -> null, (none, error) -> reportTogether(), reportEvery, reportEvery);
    }

    /**
     * A pattern is listed again on its interval; a bounded source keeps the tables it began with.
     */
    private boolean discovers() {
        return config.settings().selection().discovers()
                && config.stopAt().isEmpty()
                && config.tunnelCreation() != TunnelCreation.BASE;
    }

    private List<String> listTables() {
        return SdkTableService.listTables(config.tablestoreEndpoint());
    }

    private TableEnumerator create(
            String table, TablestoreCdcSourceConfig tableConfig, EnumeratorState state) {
        return new TableEnumerator(
                context,
                new Link(table),
                tableConfig,
                sharedProxy(),
                sharedMetaClient(),
                consumerId,
                state);
    }

    /**
     * Runs {@code step} for each table, {@link #TABLES_AT_ONCE} at a time, and waits for all; the
     * first failure is thrown (after every step ended), the others added to it.
     */
    private void inParallel(Collection<TableEnumerator> of, Consumer<TableEnumerator> step) {
        List<Future<?>> running = new ArrayList<>();
        for (TableEnumerator table : of) {
            running.add(tablesAtOnce.submit(() -> step.accept(table)));
        }
        RuntimeException failure = null;
        for (Future<?> f : running) {
            try {
                f.get();
            } catch (ExecutionException e) {
                RuntimeException cause =
                        e.getCause() instanceof RuntimeException r
                                ? r
                                : new FlinkRuntimeException(e.getCause());
                if (failure == null) {
                    failure = cause;
                } else {
                    failure.addSuppressed(cause);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new FlinkRuntimeException("Interrupted while the tables were opened", e);
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    private void open(String table, TablestoreCdcSourceConfig tableConfig, EnumeratorState state) {
        TableEnumerator enumerator = create(table, tableConfig, state);
        tables.put(table, enumerator);
        try {
            enumerator.start();
        } catch (RuntimeException e) {
            tables.remove(table);
            try {
                enumerator.close();
            } catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /**
     * A listing of the instance's tables (a pattern's): a new match is opened at its earliest
     * change, a table gone is closed. A listing or a new table that fails is tried again at the
     * next listing, with a warning: one table not ready yet does not fail the others.
     */
    private void onListing(List<String> existing, Throwable error) {
        if (closed) {
            return;
        }
        TableSelection selection = config.settings().selection();
        String interval = TableSelection.text(selection.discoveryInterval());
        if (error != null) {
            LOG.warn(
                    "Could not list the tables of instance {}, trying again in {}: {}",
                    config.instanceName(),
                    interval,
                    error.getMessage());
            return;
        }
        Set<String> now = new HashSet<>(existing);
        boolean changed = false;
        for (String table : List.copyOf(tables.keySet())) {
            if (!now.contains(table)) {
                drop(table);
                changed = true;
            }
        }
        List<TableEnumerator> found = new ArrayList<>();
        for (String table : existing) {
            if (tables.containsKey(table) || !selection.selects(table, config.metaTable())) {
                continue;
            }
            try {
                open(table, config.forNewTable(table), EnumeratorState.initial());
            } catch (RuntimeException e) {
                LOG.warn(
                        "Table {} matches {} but cannot be read yet, trying again in {}: {}",
                        table,
                        selection.describe(),
                        interval,
                        e.getMessage());
                continue;
            }
            dropped.remove(table);
            found.add(tables.get(table));
            changed = true;
            LOG.info(
                    "Found table {} matching {}: reading it through tunnel {} from its earliest"
                            + " change",
                    table,
                    selection.describe(),
                    config.tunnelName());
        }
        if (changed) {
            // The readers learn of a table before they get its client, and its splits after.
            Set<Integer> readers = context.registeredReaders().keySet();
            tellTablesRead(readers);
            found.forEach(table -> readers.forEach(table::addReader));
        }
    }

    /**
     * Closes a table that is gone: its channels are not read any more; under {@code
     * on.dropped.table=fail} the job fails naming it instead.
     */
    private void drop(String table) {
        requireDropsAllowed(table);
        TableEnumerator enumerator = tables.remove(table);
        dropped.add(table);
        LOG.warn(
                "Table {} is gone: closing its tunnel {} (changes not yet read are not read)",
                table,
                config.tunnelName());
        try {
            enumerator.close();
        } catch (RuntimeException e) {
            LOG.warn(
                    "Closing the tunnel client of dropped table {} failed: {}", table, describe(e));
        }
    }

    private void requireDropsAllowed(String table) {
        if (config.settings().selection().onDroppedTable() == DroppedTablePolicy.FAIL) {
            throw new FlinkRuntimeException(
                    DroppedTablePolicy.dropped(table, config.instanceName()).getMessage());
        }
    }

    private void tellTablesRead(Set<Integer> readers) {
        if (several) {
            TablesReadEvent event = new TablesReadEvent(tables.keySet());
            readers.forEach(r -> context.sendEventToSourceReader(r, event));
        }
    }

    @Override
    public void handleSplitRequest(int subtaskId, String requesterHostname) {
        // Splits are pushed on discovery; readers never ask.
    }

    @Override
    public void addSplitsBack(List<ChannelSplit> given, int subtaskId) {
        // Every table hears of the reader's restart: its finishes since are undone.
        Map<TableEnumerator, List<ChannelSplit>> back =
                byTable(given, s -> s.table(), ChannelSplit::withoutTable);
        tables.values().forEach(t -> t.addSplitsBack(back.getOrDefault(t, List.of()), subtaskId));
    }

    @Override
    public void addReader(int subtaskId) {
        tellTablesRead(Set.of(subtaskId));
        tables.values().forEach(t -> t.addReader(subtaskId));
        if (noMoreSplits) {
            context.signalNoMoreSplits(subtaskId);
        }
    }

    @Override
    public void handleSourceEvent(int subtaskId, SourceEvent event) {
        if (!several) {
            only().ifPresent(t -> t.handleSourceEvent(subtaskId, event));
            return;
        }
        if (event instanceof ChannelsFinishedEvent finished) {
            byTable(
                            finished.channelIds(),
                            TablestoreCdcEnumerator::tableOf,
                            ChannelSplit::channelOf)
                    .forEach(
                            (t, ids) ->
                                    t.handleSourceEvent(subtaskId, new ChannelsFinishedEvent(ids)));
        } else if (event instanceof ChannelsStoppedEvent stopped) {
            byTable(stopped.channelIds(), TablestoreCdcEnumerator::tableOf, ChannelSplit::channelOf)
                    .forEach(
                            (t, ids) ->
                                    t.handleSourceEvent(subtaskId, new ChannelsStoppedEvent(ids)));
        } else if (event instanceof CommittedPositionsEvent committed) {
            Map<TableEnumerator, List<String>> caughtUp =
                    byTable(
                            List.copyOf(committed.caughtUp()),
                            TablestoreCdcEnumerator::tableOf,
                            ChannelSplit::channelOf);
            byTable(committed.positions(), s -> s.table(), ChannelSplit::withoutTable)
                    .forEach(
                            (t, positions) ->
                                    t.committed(
                                            new CommittedPositionsEvent(
                                                    committed.checkpointId(),
                                                    positions,
                                                    Set.copyOf(
                                                            caughtUp.getOrDefault(t, List.of())))));
            pushTogether(); // every table's push with one lease read
            reportTogether(); // and the catch-up reports the positions changed
        } else {
            LOG.warn("Ignoring unknown source event {} from reader {}", event, subtaskId);
        }
    }

    private static Optional<String> tableOf(String splitId) {
        return Optional.of(ChannelSplit.tableOf(splitId));
    }

    /**
     * {@code items} grouped by the enumerator of their table (items of tables no longer read are
     * left out), each turned into what the table's enumerator knows.
     */
    private <I, O> Map<TableEnumerator, List<O>> byTable(
            List<I> items, Function<I, Optional<String>> table, Function<I, O> own) {
        Map<TableEnumerator, List<O>> grouped = new java.util.LinkedHashMap<>();
        for (I item : items) {
            Optional<TableEnumerator> enumerator =
                    several ? table.apply(item).map(tables::get) : only();
            if (enumerator.isPresent()) {
                grouped.computeIfAbsent(enumerator.get(), k -> new ArrayList<>())
                        .add(own.apply(item));
            } else {
                LOG.debug("Ignoring {} of a table no longer read", item);
            }
        }
        return grouped;
    }

    private Optional<TableEnumerator> only() {
        return tables.values().stream().findFirst();
    }

    /**
     * The checkpoint's state: every table's, each taken as a source of one table takes it (after
     * one read of the table's owner row, invariant 8), so that one checkpoint covers every table.
     */
    @Override
    public EnumeratorState snapshotState(long checkpointId) {
        if (!several) {
            return only().map(t -> t.snapshotState(checkpointId))
                    .orElseGet(
                            () ->
                                    new EnumeratorState(
                                            restored.tunnelId(),
                                            Optional.of(consumerId),
                                            restored.splits(),
                                            Optional.of(checkpointId),
                                            restored.leaseHolder()));
        }
        // Every table's owner row read in one request (per 100 tables), then every table's state.
        TableEnumerator.requireOwnership(metaClient, tables.values(), checkpointId);
        Map<String, EnumeratorState> states = new TreeMap<>();
        tables.forEach((name, table) -> states.put(name, table.stateOf(checkpointId)));
        return EnumeratorState.ofTables(consumerId, checkpointId, states);
    }

    /**
     * The checkpoint is committed. With several tables, every table's snapshot is written in one
     * shared meta write ({@link TunnelConsumer#writeSnapshots}: one lease read for all tables, then
     * shared batch writes) instead of one write per table, then each table pushes to the server
     * what is committed. Both run on the worker thread, in this order, as for one table.
     */
    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        if (!several) {
            tables.values().forEach(t -> t.notifyCheckpointComplete(checkpointId));
            return;
        }
        Map<TunnelConsumer, CheckpointCommits.MetaWrite> commits = new LinkedHashMap<>();
        Map<TunnelConsumer, TunnelConsumer.SnapshotWrite> writes = new LinkedHashMap<>();
        Map<TunnelConsumer, TableEnumerator> byConsumer = new LinkedHashMap<>();
        for (TableEnumerator table : tables.values()) {
            table.completedForSharedWrite(checkpointId)
                    .ifPresent(
                            w -> {
                                commits.put(table.consumer(), w);
                                writes.put(
                                        table.consumer(),
                                        new TunnelConsumer.SnapshotWrite(
                                                w.snapshot(), checkpointId, w.adoptions()));
                                byConsumer.put(table.consumer(), table);
                            });
        }
        if (!writes.isEmpty()) {
            context.callAsync(
                    () -> {
                        TunnelConsumer.writeSnapshots(metaClient, writes);
                        return writes;
                    },
                    (written, error) -> {
                        if (error == null) {
                            written.keySet()
                                    .forEach(
                                            consumer ->
                                                    byConsumer
                                                            .get(consumer)
                                                            .metaWritten(commits.get(consumer)));
                            return;
                        }
                        OwnershipLoss.rethrow(error);
                        if (byConsumer.keySet().stream().anyMatch(TunnelConsumer::isClosed)) {
                            LOG.info(
                                    "Checkpoint {} was not written to meta table {}: the source"
                                            + " stopped first",
                                    checkpointId,
                                    metaClient.tableName());
                            return;
                        }
                        LOG.warn(
                                "Could not write checkpoint {} of {} tables to meta table {}; the"
                                        + " next checkpoint writes newer positions: {}",
                                checkpointId,
                                writes.size(),
                                metaClient.tableName(),
                                error.getMessage());
                    });
        }
        pushTogether();
    }

    /**
     * Every table's push of what is committed and the server lacks, with one lease read for all
     * tables ({@link TunnelConsumer#pushAll}) instead of one per table; each table's outcome is
     * handled as for one table.
     */
    private void pushTogether() {
        Map<TunnelConsumer, ServerCommitPlan> plans = new LinkedHashMap<>();
        Map<TunnelConsumer, TableEnumerator> byConsumer = new LinkedHashMap<>();
        for (TableEnumerator table : tables.values()) {
            table.planPush()
                    .ifPresent(
                            plan -> {
                                plans.put(table.consumer(), plan);
                                byConsumer.put(table.consumer(), table);
                            });
        }
        if (plans.isEmpty()) {
            return;
        }
        context.callAsync(
                () -> TunnelConsumer.pushAll(metaClient, plans),
                (failed, error) ->
                        plans.forEach(
                                (consumer, plan) ->
                                        byConsumer
                                                .get(consumer)
                                                .onPushed(
                                                        plan,
                                                        error != null
                                                                ? error
                                                                : failed.get(consumer))));
    }

    /**
     * Every table's catch-up report that is due, written together ({@link
     * TunnelConsumer#reportAll}: one lease read, then shared batch writes) instead of one write per
     * table from each table's discovery round; nothing is sent when no report is due. On the
     * coordinator thread; the writes run on the worker thread.
     */
    private void reportTogether() {
        List<TunnelConsumer> consumers = new ArrayList<>();
        for (TableEnumerator table : tables.values()) {
            table.reportingConsumer().ifPresent(consumers::add);
        }
        if (consumers.isEmpty() || closed) {
            return;
        }
        context.callAsync(
                () -> {
                    TunnelConsumer.reportAll(metaClient, consumers);
                    return null;
                },
                (none, error) -> {
                    if (error != null) {
                        OwnershipLoss.rethrow(error);
                        LOG.warn(
                                "Could not write the catch-up reports of {} tables to meta table"
                                        + " {}; retrying: {}",
                                consumers.size(),
                                metaClient.tableName(),
                                error.getMessage());
                    }
                });
    }

    /** Makes the next discovery round of every table renew its owner lease (tests). */
    @VisibleForTesting
    void requestLeaseRenewal() {
        tables.values().forEach(TableEnumerator::requestLeaseRenewal);
    }

    /** Makes the next discovery round of every table heartbeat first (tests). */
    @VisibleForTesting
    void requestHeartbeat() {
        tables.values().forEach(TableEnumerator::requestHeartbeat);
    }

    /** The tables read now (tests). */
    @VisibleForTesting
    Set<String> tables() {
        return Set.copyOf(tables.keySet());
    }

    /**
     * Closes every table's connection in the core's order, then the shared clients; every step runs
     * even when one before failed. A second call does nothing.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        CloseSequence closing = CloseSequence.of("the Tablestore CDC enumerator");
        for (TableEnumerator table : tables.values()) {
            closing.then("close the tunnel client of table " + table.table(), table::close);
        }
        if (tablesAtOnce != null) {
            closing.thenStop("stop the table threads", tablesAtOnce, 10_000);
        }
        if (proxy != null) {
            closing.then("close the tunnel client", proxy::close);
        }
        if (metaClient != null) {
            closing.then("close the meta table client", metaClient::close);
        }
        try {
            closing.finish();
        } catch (RuntimeException | Error e) {
            // Flink closes a coordinator quietly: say here what failed. The message only: a stack
            // trace's classes may no longer be loadable once the job's classloader is closed.
            LOG.warn("Closing the Tablestore CDC enumerator failed: {}", describe(e));
            throw e;
        }
    }

    private static String describe(Throwable e) {
        StringBuilder text = new StringBuilder(e.toString());
        for (Throwable s : e.getSuppressed()) {
            text.append("; also ").append(s);
        }
        return text.toString();
    }

    /** The tunnel client as one table uses it: the source closes it after every table. */
    private TunnelProxy sharedProxy() {
        return new ForwardingTunnelProxy(proxy) {
            @Override
            public void close() {
                // The source closes the shared client after every table's consumer.
            }
        };
    }

    /** The meta table client as one table uses it: the source closes it after every table. */
    private MetaTableClient sharedMetaClient() {
        return new ForwardingMetaTableClient(metaClient) {
            @Override
            public void close() {
                // The source closes the shared client after every table's consumer.
            }
        };
    }

    private void completed() {
        if (noMoreSplits || tables.isEmpty() || discovers()) {
            return;
        }
        if (tables.values().stream().allMatch(TableEnumerator::isComplete)) {
            noMoreSplits = true;
            context.registeredReaders().keySet().forEach(context::signalNoMoreSplits);
        }
    }

    /** One table's way to the readers. */
    private final class Link implements TableLink {
        private final String table;

        Link(String table) {
            this.table = table;
        }

        @Override
        public MetricGroup metrics() {
            return several
                    ? tableGroups.computeIfAbsent(
                            table, t -> context.metricGroup().addGroup(TABLE_GROUP, t))
                    : context.metricGroup();
        }

        @Override
        public Map<Integer, Integer> load(Set<Integer> readers) {
            Map<Integer, Integer> load = new TreeMap<>();
            readers.forEach(r -> load.put(r, 0));
            for (TableEnumerator enumerator : tables.values()) {
                enumerator.load(readers).forEach((r, n) -> load.merge(r, n, Integer::sum));
            }
            return load;
        }

        @Override
        public void assign(Map<Integer, List<ChannelSplit>> plan) {
            if (!several) {
                context.assignSplits(new SplitsAssignment<>(plan));
                return;
            }
            Map<Integer, List<ChannelSplit>> named = new TreeMap<>();
            plan.forEach(
                    (subtask, splits) ->
                            named.put(
                                    subtask, splits.stream().map(s -> s.inTable(table)).toList()));
            context.assignSplits(new SplitsAssignment<>(named));
        }

        @Override
        public void send(int subtask, TunnelClientEvent event) {
            context.sendEventToSourceReader(subtask, several ? event.forTable(table) : event);
        }

        @Override
        public boolean isGone(Throwable error) {
            if (!several || closed || !tables.containsKey(table)) {
                return false;
            }
            List<String> existing;
            try {
                existing = listTables();
            } catch (RuntimeException e) {
                error.addSuppressed(e);
                return false;
            }
            if (existing.contains(table)) {
                return false;
            }
            drop(table);
            tellTablesRead(context.registeredReaders().keySet());
            return true;
        }

        @Override
        public void completed() {
            TablestoreCdcEnumerator.this.completed();
        }
    }
}
