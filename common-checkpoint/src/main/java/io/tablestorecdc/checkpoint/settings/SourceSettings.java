package io.tablestorecdc.checkpoint.settings;

import static io.tablestorecdc.checkpoint.settings.SourceOption.IGNORE_DELETE;
import static io.tablestorecdc.checkpoint.settings.SourceOption.META_FULL_SNAPSHOT_EVERY;
import static io.tablestorecdc.checkpoint.settings.SourceOption.META_RETENTION_BATCHES;
import static io.tablestorecdc.checkpoint.settings.SourceOption.META_TABLE;
import static io.tablestorecdc.checkpoint.settings.SourceOption.ON_SERVER_AHEAD;
import static io.tablestorecdc.checkpoint.settings.SourceOption.SKIP_INVALID_DATA;
import static io.tablestorecdc.checkpoint.settings.SourceOption.TUNNEL_CREATE;
import static io.tablestorecdc.checkpoint.settings.SourceOption.TUNNEL_NAME;
import static io.tablestorecdc.checkpoint.settings.SourceOption.TUNNEL_START;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.merge.ServerAheadPolicy;
import io.tablestorecdc.checkpoint.meta.SdkMetaTableClient;
import io.tablestorecdc.checkpoint.model.CredentialsSource;
import io.tablestorecdc.checkpoint.model.TablestoreEndpoint;
import io.tablestorecdc.checkpoint.tunnel.TunnelStart;
import java.io.Serializable;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The validated values of the options both engines share ({@link SourceOption}).
 *
 * <p>Serializable plain fields, because both engines ship it to their workers, which build their
 * own SDK clients from it. The access key secret and the STS token never appear in {@link
 * #toString()}; the only way to read them is {@link #credentials()}.
 */
@Internal
public final class SourceSettings implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Option {@code meta.table} when not set. */
    public static final String DEFAULT_META_TABLE = SdkMetaTableClient.DEFAULT_TABLE_NAME;

    private final TableConnection connection;
    private final TableSelection selection;
    private final String tunnelName;
    private final TunnelCreation tunnelCreation;
    private final TunnelStart.Kind startKind;
    private final Instant startAt;
    private final boolean startSet;
    private final String metaTable;
    private final boolean skipInvalidData;
    private final boolean ignoreDelete;
    private final ServerAheadPolicy onServerAhead;
    private final int metaFullSnapshotEvery;
    private final int metaRetentionBatches;

    private SourceSettings(Reading r) {
        this.connection = r.connection;
        this.selection = r.selection;
        this.tunnelName = r.tunnelName;
        this.tunnelCreation = r.tunnelCreation;
        this.startKind = r.start.kind();
        this.startAt = r.start.at().orElse(null);
        this.startSet = r.startSet;
        this.metaTable = r.metaTable;
        this.skipInvalidData = r.skipInvalidData;
        this.ignoreDelete = r.ignoreDelete;
        this.onServerAhead = r.onServerAhead;
        this.metaFullSnapshotEvery = r.metaFullSnapshotEvery;
        this.metaRetentionBatches = r.metaRetentionBatches;
    }

    private SourceSettings(SourceSettings other, String table, boolean fromFirstChange) {
        this.connection = other.connection.withTable(table);
        this.selection = TableSelection.of(table);
        this.tunnelName = other.tunnelName;
        this.tunnelCreation = other.tunnelCreation;
        this.startKind = fromFirstChange ? TunnelStart.Kind.EARLIEST : other.startKind;
        this.startAt = fromFirstChange ? null : other.startAt;
        this.startSet = other.startSet || fromFirstChange;
        this.metaTable = other.metaTable;
        this.skipInvalidData = other.skipInvalidData;
        this.ignoreDelete = other.ignoreDelete;
        this.onServerAhead = other.onServerAhead;
        this.metaFullSnapshotEvery = other.metaFullSnapshotEvery;
        this.metaRetentionBatches = other.metaRetentionBatches;
    }

    /**
     * Reads the shared options from {@code values}, recording each problem there.
     *
     * @return the settings; empty when {@code values} holds any problem, including one recorded
     *     before this call (the caller then reports them with {@link OptionValues#throwIfAny})
     */
    public static Optional<SourceSettings> read(OptionValues values) {
        Reading r = new Reading(values);
        return values.hasProblems() ? Optional.empty() : Optional.of(new SourceSettings(r));
    }

    /**
     * Parses the shared options of {@code options} (exact keys; others are ignored) and throws
     * every problem at once.
     *
     * @param howToSet for a key, how the user sets it (completes a missing-option message)
     * @param subject what is being configured, for the head of the message
     * @param docsPage the page that lists every option
     * @throws IllegalArgumentException listing every problem, each naming the option and the fix
     */
    public static SourceSettings parse(
            Map<String, String> options,
            Function<String, String> howToSet,
            String subject,
            String docsPage) {
        OptionValues values = new OptionValues(options, howToSet);
        Optional<SourceSettings> settings = read(values);
        values.throwIfAny(subject, docsPage);
        return settings.orElseThrow();
    }

    /** The instance endpoint with credentials, as the core's SDK adapters take it. */
    public TablestoreEndpoint tablestoreEndpoint() {
        return connection.tablestoreEndpoint();
    }

    /**
     * Where SDK clients get their credentials ({@code credentials.provider}); for {@code static},
     * the access key pair and STS token: the one way to read the secrets.
     */
    public CredentialsSource credentials() {
        return connection.credentials();
    }

    /** The connection options ({@code endpoint} to {@code table.name}), as the sinks read them. */
    public TableConnection connection() {
        return connection;
    }

    public String endpoint() {
        return connection.endpoint();
    }

    public String instanceName() {
        return connection.instanceName();
    }

    /** The access key id of {@code credentials.provider = static}; {@code null} for the others. */
    public String accessKeyId() {
        return connection.accessKeyId();
    }

    /**
     * The one table of a single-table source.
     *
     * @throws IllegalStateException for a source of several tables: each has its settings ({@link
     *     #forTable})
     */
    public String tableName() {
        if (!selection.single()) {
            throw new IllegalStateException(
                    "A source of several tables ("
                            + selection.describe()
                            + ") has no single table name; ask forTable(table) for one table's");
        }
        return connection.tableName();
    }

    /** Which tables the source reads. */
    public TableSelection selection() {
        return selection;
    }

    /**
     * The tables selected now, sorted: the one table, the listed ones, or the tables of the
     * instance that match the pattern (the meta table never).
     *
     * @param instanceTables lists the instance's tables; asked for a pattern only
     * @throws IllegalArgumentException when a pattern matches no table, naming the tables there are
     */
    public List<String> selectedTables(Supplier<List<String>> instanceTables) {
        if (selection.single()) {
            return List.of(tableName());
        }
        if (selection.pattern().isEmpty()) {
            return selection.listedTables(metaTable());
        }
        return selection.resolve(instanceTables.get(), metaTable(), instanceName());
    }

    /** These settings for one table of the selection: the same tunnel name, meta table, rules. */
    public SourceSettings forTable(String table) {
        return new SourceSettings(this, table, false);
    }

    /**
     * These settings for a table the source found while it ran (a pattern's new match): a tunnel
     * the source creates on it starts at the table's earliest change, so that nothing written
     * between the table's creation and its discovery is missed, whatever {@code tunnel.start} says
     * for the tables found at start.
     */
    public SourceSettings forNewTable(String table) {
        return new SourceSettings(this, table, true);
    }

    public String tunnelName() {
        return tunnelName;
    }

    public TunnelCreation tunnelCreation() {
        return tunnelCreation;
    }

    /** Where a tunnel the source creates starts its stream. */
    public TunnelStart tunnelStart() {
        return startAt == null
                ? new TunnelStart(startKind, Optional.empty(), Optional.empty())
                : TunnelStart.at(startAt);
    }

    public String metaTable() {
        return metaTable;
    }

    public boolean skipInvalidData() {
        return skipInvalidData;
    }

    public boolean ignoreDelete() {
        return ignoreDelete;
    }

    /** What to do with changes older state can no longer read ({@code on.server.ahead}). */
    public ServerAheadPolicy onServerAhead() {
        return onServerAhead;
    }

    /** Batches from one full meta snapshot to the next ({@code meta.full.snapshot.every}). */
    public int metaFullSnapshotEvery() {
        return metaFullSnapshotEvery;
    }

    /** How many of the newest batches the meta table keeps ({@code meta.retention.batches}). */
    public int metaRetentionBatches() {
        return metaRetentionBatches;
    }

    /**
     * The problem of a {@code tunnel.start} that was set although the source creates no tunnel with
     * a stream part, where it would have no effect; empty otherwise. Spark rejects it; Flink, whose
     * builder always carried a start position, logs it.
     */
    public Optional<String> unusedTunnelStart() {
        if (!startSet || tunnelCreation.createsStream()) {
            return Optional.empty();
        }
        return Optional.of(
                "Option '"
                        + TUNNEL_START.key()
                        + "' applies only when the source creates a tunnel with a stream part: set "
                        + TUNNEL_CREATE.key()
                        + " to stream or base-and-stream, or remove "
                        + TUNNEL_START.key()
                        + " (an existing tunnel keeps the start it was created with)");
    }

    /** The settings as {@code key=value} pairs in option order, secrets masked. */
    public String describe() {
        return connection.describeInstance()
                + ", "
                + selection.describe()
                + ", "
                + TUNNEL_NAME.key()
                + "="
                + tunnelName
                + ", "
                + TUNNEL_CREATE.key()
                + "="
                + tunnelCreation.code()
                + ", "
                + TUNNEL_START.key()
                + "="
                + TunnelStartText.format(tunnelStart())
                + ", "
                + META_TABLE.key()
                + "="
                + metaTable
                + ", "
                + META_FULL_SNAPSHOT_EVERY.key()
                + "="
                + metaFullSnapshotEvery
                + ", "
                + META_RETENTION_BATCHES.key()
                + "="
                + metaRetentionBatches
                + ", "
                + SKIP_INVALID_DATA.key()
                + "="
                + skipInvalidData
                + ", "
                + IGNORE_DELETE.key()
                + "="
                + ignoreDelete
                + ", "
                + ON_SERVER_AHEAD.key()
                + "="
                + onServerAhead.name().toLowerCase(Locale.ROOT);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof SourceSettings)) {
            return false;
        }
        SourceSettings other = (SourceSettings) o;
        return connection.equals(other.connection)
                && selection.equals(other.selection)
                && tunnelName.equals(other.tunnelName)
                && tunnelCreation == other.tunnelCreation
                && tunnelStart().equals(other.tunnelStart())
                && startSet == other.startSet
                && metaTable.equals(other.metaTable)
                && skipInvalidData == other.skipInvalidData
                && ignoreDelete == other.ignoreDelete
                && onServerAhead == other.onServerAhead
                && metaFullSnapshotEvery == other.metaFullSnapshotEvery
                && metaRetentionBatches == other.metaRetentionBatches;
    }

    @Override
    public int hashCode() {
        return Objects.hash(connection, tunnelName, metaTable);
    }

    /** Secrets are replaced by {@code ******}. */
    @Override
    public String toString() {
        return "SourceSettings{" + describe() + "}";
    }

    /** One pass over the shared options, recording problems and keeping fallbacks. */
    private static final class Reading {
        private final TableConnection connection;
        private final TableSelection selection;
        private final String tunnelName;
        private final TunnelCreation tunnelCreation;
        private final TunnelStart start;
        private final boolean startSet;
        private final String metaTable;
        private final boolean skipInvalidData;
        private final boolean ignoreDelete;
        private final ServerAheadPolicy onServerAhead;
        private final int metaFullSnapshotEvery;
        private final int metaRetentionBatches;

        Reading(OptionValues values) {
            selection = TableSelection.reading(values);
            connection =
                    TableConnection.reading(
                            values,
                            selection.single()
                                    ? selection.listed().get(0)
                                    : String.join(",", selection.listed()));
            tunnelName = values.required(TUNNEL_NAME.key());
            tunnelCreation = values.choice(TUNNEL_CREATE.spec(), TunnelCreation.class);
            startSet = values.text(TUNNEL_START.key()).isPresent();
            start = values.parsed(TUNNEL_START.key(), TunnelStart.latest(), TunnelStartText::parse);
            metaTable = values.parsed(META_TABLE.key(), DEFAULT_META_TABLE, Reading::tableName);
            skipInvalidData = values.bool(SKIP_INVALID_DATA.spec());
            ignoreDelete = values.bool(IGNORE_DELETE.spec());
            onServerAhead = values.choice(ON_SERVER_AHEAD.spec(), ServerAheadPolicy.class);
            metaFullSnapshotEvery = (int) values.wholeNumber(META_FULL_SNAPSHOT_EVERY.spec(), 0);
            metaRetentionBatches = (int) values.wholeNumber(META_RETENTION_BATCHES.spec(), 0);
        }

        private static String tableName(String text) {
            if (text.isEmpty()) {
                throw new IllegalArgumentException(
                        OptionValues.invalidValue(
                                META_TABLE.key(),
                                text,
                                "name a table, or leave the option unset for "
                                        + DEFAULT_META_TABLE));
            }
            return text;
        }
    }
}
