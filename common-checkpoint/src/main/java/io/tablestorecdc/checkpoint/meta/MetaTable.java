package io.tablestorecdc.checkpoint.meta;

import io.tablestorecdc.checkpoint.annotation.Internal;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The meta table in the connector's terms, with the rows of every tunnel in it: created here,
 * counted and deleted per tunnel for operators, and read and written per tunnel through {@link
 * #tunnel(String)}. With {@link TunnelMeta}, the only code that reads or writes the meta table; the
 * row layout is {@link MetaRowFormat}'s and docs/meta-table.md's.
 *
 * <p>The tunnels of one handle share its client, its executor and its memory of recent snapshots.
 * Thread-safe.
 */
@Internal
public final class MetaTable {

    /**
     * How often a full snapshot is written when nothing else forces one: a snapshot at this many
     * batches past its base is written in full ({@code meta.full.snapshot.every}).
     */
    public static final int DEFAULT_FULL_SNAPSHOT_EVERY = 64;

    /**
     * How many of a tunnel's newest batches the meta table keeps when nothing else is said ({@code
     * meta.retention.batches}), in both engines.
     */
    public static final int DEFAULT_RETENTION_BATCHES = 100;

    private static final Logger LOG = LoggerFactory.getLogger(MetaTable.class);

    private final MetaTableClient client;
    private final Clock clock;
    private final int fullSnapshotEvery;
    private final int rowsPerReadSlice;
    private final MetaRequests requests;
    private final KnownSnapshots known = new KnownSnapshots();
    private final Ownership ownership;
    private final TunnelCensus census;

    public MetaTable(MetaTableClient client) {
        this(client, Clock.systemUTC());
    }

    public MetaTable(MetaTableClient client, Clock clock) {
        this(client, clock, DEFAULT_FULL_SNAPSHOT_EVERY);
    }

    /**
     * @param fullSnapshotEvery a snapshot this many batches past its base is written in full; 1
     *     writes every snapshot in full (format 1's cost, still written as format 2)
     */
    public MetaTable(MetaTableClient client, Clock clock, int fullSnapshotEvery) {
        this(client, clock, fullSnapshotEvery, Optional.empty());
    }

    /**
     * @param parallelRequests runs the requests of one snapshot's write, read or purge at once;
     *     empty to send them one after another
     */
    public MetaTable(
            MetaTableClient client,
            Clock clock,
            int fullSnapshotEvery,
            Optional<Executor> parallelRequests) {
        this(
                client,
                clock,
                fullSnapshotEvery,
                parallelRequests,
                SnapshotReader.DEFAULT_ROWS_PER_READ_SLICE);
    }

    MetaTable(
            MetaTableClient client,
            Clock clock,
            int fullSnapshotEvery,
            Optional<Executor> parallelRequests,
            int rowsPerReadSlice) {
        Objects.requireNonNull(parallelRequests, "parallelRequests");
        if (rowsPerReadSlice < 1) {
            throw new IllegalArgumentException(
                    "rowsPerReadSlice must be >= 1 but was " + rowsPerReadSlice);
        }
        this.rowsPerReadSlice = rowsPerReadSlice;
        this.client = Objects.requireNonNull(client, "client");
        this.clock = Objects.requireNonNull(clock, "clock");
        if (fullSnapshotEvery < 1) {
            throw new IllegalArgumentException(
                    "fullSnapshotEvery must be >= 1 but was " + fullSnapshotEvery);
        }
        this.fullSnapshotEvery = fullSnapshotEvery;
        this.requests = new MetaRequests(client, parallelRequests);
        this.ownership = new Ownership(client, clock, requests.format());
        this.census = new TunnelCensus(requests, known);
    }

    /** The meta table's name, for messages. */
    public String tableName() {
        return client.tableName();
    }

    /** Creates the meta table unless it exists (and checks its key if it does). */
    public void ensureTable() {
        if (client.createTableIfMissing()) {
            LOG.info("Created meta table {}", client.tableName());
        }
    }

    /**
     * The current owner lease of each tunnel, read together (one request per 100 tunnels): what
     * {@link TunnelMeta#owner()} reads for one, for a source of many tables that checks every
     * tunnel's lease at once.
     */
    public Map<String, Optional<OwnerLease>> owners(List<String> tunnelIds) {
        return ownership.current(tunnelIds);
    }

    /**
     * The rows of one tunnel: its snapshots, fills, retention, adoptions, tunnel client, catch-up
     * report and owner lease. A consumer reads and writes only its own tunnel's rows, so it holds
     * the handle of that tunnel and names it nowhere else.
     */
    public TunnelMeta tunnel(String tunnelId) {
        Objects.requireNonNull(tunnelId, "tunnelId");
        SnapshotReader reader = new SnapshotReader(tunnelId, requests, known, rowsPerReadSlice);
        AtomicLong logged = new AtomicLong();
        return new TunnelMeta(
                tunnelId,
                new SnapshotWriter(
                        tunnelId, requests, reader, known, clock, fullSnapshotEvery, logged),
                reader,
                new Retention(tunnelId, requests, reader, known, logged),
                new ConsumerRecords(tunnelId, requests, ownership));
    }

    /** Counts the tunnel's rows in this meta table, as {@link #deleteTunnelRows} would delete. */
    public TunnelRows tunnelRows(String tunnelId) {
        return census.rows(tunnelId);
    }

    /**
     * Deletes every row of the tunnel: its snapshots, batch log, adoptions, owner lease, recorded
     * client and catch-up report. For a consumer that is gone for good (a dropped query or job, a
     * deleted tunnel); a consumer that still runs would find its committed snapshots gone. Snapshot
     * rows go first and the batch log last, so an interrupted call is finished by the next one.
     *
     * @return what was deleted
     */
    public TunnelRows deleteTunnelRows(String tunnelId) {
        return census.delete(tunnelId);
    }
}
