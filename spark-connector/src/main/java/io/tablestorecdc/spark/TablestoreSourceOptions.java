package io.tablestorecdc.spark;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.merge.ServerAheadPolicy;
import io.tablestorecdc.checkpoint.merge.VanishedChannelPolicy;
import io.tablestorecdc.checkpoint.model.TablestoreEndpoint;
import io.tablestorecdc.checkpoint.settings.OptionSpec;
import io.tablestorecdc.checkpoint.settings.OptionValues;
import io.tablestorecdc.checkpoint.settings.SourceOption;
import io.tablestorecdc.checkpoint.settings.SourceSettings;
import io.tablestorecdc.checkpoint.settings.TableSelection;
import io.tablestorecdc.checkpoint.settings.TunnelCreation;
import io.tablestorecdc.checkpoint.tunnel.TunnelStart;
import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;

/**
 * The options of {@code format("tablestore-cdc")}, parsed case-insensitively and validated when the
 * stream is loaded.
 *
 * <p>The options Spark shares with Flink (connection, tunnel, meta table, record handling) are the
 * core's {@link SourceOption}s, read and validated by {@link SourceSettings}; this class aliases
 * their keys and adds the options only Spark has (batch sizing and the vanished-channel policy).
 *
 * <p>Serializable because executors build their own SDK clients from it. The access key secret and
 * the STS token never appear in {@link #toString()} (invariant 9).
 */
@Internal
public final class TablestoreSourceOptions implements Serializable {

    private static final long serialVersionUID = 3L;

    public static final String ENDPOINT = SourceOption.ENDPOINT.key();
    public static final String INSTANCE_NAME = SourceOption.INSTANCE_NAME.key();
    public static final String ACCESS_KEY_ID = SourceOption.ACCESS_KEY_ID.key();
    public static final String ACCESS_KEY_SECRET = SourceOption.ACCESS_KEY_SECRET.key();
    public static final String STS_TOKEN = SourceOption.STS_TOKEN.key();
    public static final String TABLE_NAME = SourceOption.TABLE_NAME.key();
    public static final String TUNNEL_NAME = SourceOption.TUNNEL_NAME.key();
    public static final String TUNNEL_CREATE = SourceOption.TUNNEL_CREATE.key();
    public static final String TUNNEL_START = SourceOption.TUNNEL_START.key();
    public static final String META_TABLE = SourceOption.META_TABLE.key();
    public static final String META_FULL_SNAPSHOT_EVERY =
            SourceOption.META_FULL_SNAPSHOT_EVERY.key();
    public static final String META_RETENTION_BATCHES = SourceOption.META_RETENTION_BATCHES.key();
    public static final String SKIP_INVALID_DATA = SourceOption.SKIP_INVALID_DATA.key();
    public static final String IGNORE_DELETE = SourceOption.IGNORE_DELETE.key();

    static final OptionSpec MAX_ROWS_PER_TRIGGER_SPEC =
            OptionSpec.key("max.rows.per.trigger")
                    .longType(1, Long.MAX_VALUE)
                    .description(
                            "At most about this many records per batch, split across the channels"
                                    + " that have data in proportion to their backlog (as the"
                                    + " planning probe sees it; evenly in a query's first batch and"
                                    + " among channels that filled their cap; each channel reads at"
                                    + " least one). Unset: no limit but `max.rows.per.channel`.");
    static final OptionSpec MIN_ROWS_PER_TRIGGER_SPEC =
            OptionSpec.key("min.rows.per.trigger")
                    .longType(1, Long.MAX_VALUE)
                    .description(
                            "A batch waits until at least this many records are known to wait"
                                    + " (Kafka's `minOffsetsPerTrigger`), for at most"
                                    + " `max.trigger.delay`; see [Batches and"
                                    + " triggers](#batches-and-triggers). At most"
                                    + " `max.rows.per.trigger` when both are set.");
    static final OptionSpec MAX_TRIGGER_DELAY_SPEC =
            OptionSpec.key("max.trigger.delay")
                    .durationType(false)
                    .defaultValue("15m")
                    .description(
                            "Only with `min.rows.per.trigger`: the longest a batch waits for the"
                                    + " minimum after the previous batch (Kafka's"
                                    + " `maxTriggerDelay`).");
    static final OptionSpec MAX_ROWS_PER_CHANNEL_SPEC =
            OptionSpec.key("max.rows.per.channel")
                    .longType(1, Long.MAX_VALUE)
                    .defaultValue("100000")
                    .description("At most this many records per channel per batch.");
    static final OptionSpec CHANNEL_READ_BUDGET_SPEC =
            OptionSpec.key("channel.read.budget")
                    .durationType(false)
                    .defaultValue("10s")
                    .description(
                            "How long one task may keep asking the server for more records of one"
                                    + " channel in one batch.");
    static final OptionSpec MAX_CHANNELS_PER_PARTITION_SPEC =
            OptionSpec.key("max.channels.per.partition")
                    .intType(1, Integer.MAX_VALUE)
                    .description(
                            "At most this many channels per input partition (task) of a batch; a"
                                    + " task reads its channels one after another. Unset"
                                    + " (automatic): one channel per task while the batch reads at"
                                    + " most 4 × Spark's default parallelism channels, otherwise as"
                                    + " few per task as keep the tasks within that number. `1`"
                                    + " gives every channel a task of its own.");

    /** As the Tablestore SDK's own tunnel worker checkpoints: at most every 5 seconds. */
    static final OptionSpec SERVER_PROGRESS_INTERVAL_SPEC =
            OptionSpec.key("server.progress.interval")
                    .durationType(true)
                    .defaultValue("5s")
                    .description(
                            "At most how often the positions of committed batches are pushed to"
                                    + " the tunnel server (the progress the Tablestore console"
                                    + " shows, and where a new checkpoint location starts); `0s`"
                                    + " after every batch. The newest committed batch is pushed"
                                    + " within the interval, and at once when the query stops; a"
                                    + " batch that finishes a channel is pushed at once whatever"
                                    + " this says, so its children open without waiting.");

    static final OptionSpec ON_VANISHED_CHANNEL_SPEC =
            OptionSpec.key(VanishedChannelPolicy.OPTION_KEY)
                    .enumType(VanishedChannelPolicy.class)
                    .defaultValue(VanishedChannelPolicy.FAIL.toString())
                    .description(
                            "A channel unfinished in the meta table that the server no longer"
                                    + " lists: `fail` stops the query naming the channels; `warn`"
                                    + " keeps it as an unread entry and logs a warning.");

    /** The options only Spark reads, in the order the docs list them. */
    static final List<OptionSpec> SPARK_ONLY_OPTIONS =
            List.of(
                    MAX_ROWS_PER_TRIGGER_SPEC,
                    MIN_ROWS_PER_TRIGGER_SPEC,
                    MAX_TRIGGER_DELAY_SPEC,
                    MAX_ROWS_PER_CHANNEL_SPEC,
                    CHANNEL_READ_BUDGET_SPEC,
                    MAX_CHANNELS_PER_PARTITION_SPEC,
                    SERVER_PROGRESS_INTERVAL_SPEC,
                    ON_VANISHED_CHANNEL_SPEC);

    public static final String MAX_ROWS_PER_TRIGGER = MAX_ROWS_PER_TRIGGER_SPEC.key();
    public static final String MIN_ROWS_PER_TRIGGER = MIN_ROWS_PER_TRIGGER_SPEC.key();
    public static final String MAX_TRIGGER_DELAY = MAX_TRIGGER_DELAY_SPEC.key();
    public static final String MAX_ROWS_PER_CHANNEL = MAX_ROWS_PER_CHANNEL_SPEC.key();
    public static final String CHANNEL_READ_BUDGET = CHANNEL_READ_BUDGET_SPEC.key();
    public static final String MAX_CHANNELS_PER_PARTITION = MAX_CHANNELS_PER_PARTITION_SPEC.key();
    public static final String ON_VANISHED_CHANNEL = ON_VANISHED_CHANNEL_SPEC.key();
    public static final String SERVER_PROGRESS_INTERVAL = SERVER_PROGRESS_INTERVAL_SPEC.key();

    /** Every option this source reads. */
    public static final Set<String> KNOWN = known();

    private final SourceSettings settings;
    private final int metaRetentionBatches;
    private final long maxRowsPerTrigger;
    private final long minRowsPerTrigger;
    private final Duration maxTriggerDelay;
    private final long maxRowsPerChannel;
    private final Duration channelReadBudget;
    private final int maxChannelsPerPartition;
    private final VanishedChannelPolicy onVanishedChannel;
    private final Duration serverProgressInterval;

    private TablestoreSourceOptions(SourceSettings settings, SparkOnly own) {
        this.settings = settings;
        this.metaRetentionBatches = settings.metaRetentionBatches();
        this.maxRowsPerTrigger = own.maxRowsPerTrigger;
        this.minRowsPerTrigger = own.minRowsPerTrigger;
        this.maxTriggerDelay = own.maxTriggerDelay;
        this.maxRowsPerChannel = own.maxRowsPerChannel;
        this.channelReadBudget = own.budget;
        this.maxChannelsPerPartition = own.maxChannelsPerPartition;
        this.onVanishedChannel = own.onVanished;
        this.serverProgressInterval = own.serverProgressInterval;
    }

    /** {@code other} reading {@code settings}'s table selection. */
    private TablestoreSourceOptions(TablestoreSourceOptions other, SourceSettings settings) {
        this.settings = settings;
        this.metaRetentionBatches = other.metaRetentionBatches;
        this.maxRowsPerTrigger = other.maxRowsPerTrigger;
        this.minRowsPerTrigger = other.minRowsPerTrigger;
        this.maxTriggerDelay = other.maxTriggerDelay;
        this.maxRowsPerChannel = other.maxRowsPerChannel;
        this.channelReadBudget = other.channelReadBudget;
        this.maxChannelsPerPartition = other.maxChannelsPerPartition;
        this.onVanishedChannel = other.onVanishedChannel;
        this.serverProgressInterval = other.serverProgressInterval;
    }

    /** These options for one of the tables they select, as a source of that table alone. */
    public TablestoreSourceOptions forTable(String table) {
        return new TablestoreSourceOptions(this, settings.forTable(table));
    }

    /** These options for a table found while the source ran: its tunnel starts at the earliest. */
    public TablestoreSourceOptions forNewTable(String table) {
        return new TablestoreSourceOptions(this, settings.forNewTable(table));
    }

    /**
     * The tables as plans and logs name them: the table, the listed tables ({@code a,b}), or the
     * pattern ({@code /regex/}).
     */
    public String tablesLabel() {
        TableSelection selection = settings.selection();
        if (selection.pattern().isPresent()) {
            return "/" + selection.pattern().get() + "/";
        }
        return String.join(",", selection.listed());
    }

    /** Which tables the source reads: one, a list, or a pattern. */
    public TableSelection selection() {
        return settings.selection();
    }

    /**
     * Parses and validates the options (keys are case-insensitive).
     *
     * @throws IllegalArgumentException listing every problem, each naming the option and the fix
     */
    public static TablestoreSourceOptions parse(Map<String, String> options) {
        Map<String, String> known = new HashMap<>();
        List<String> unknown = new ArrayList<>();
        options.forEach((key, value) -> sort(key, value, known, unknown));
        OptionValues values =
                new OptionValues(known, key -> "set it with .option(\"" + key + "\", ...)");
        unknown.forEach(values::problem);
        Optional<SourceSettings> settings = SourceSettings.read(values);
        settings.flatMap(SourceSettings::unusedTunnelStart).ifPresent(values::problem);
        SparkOnly own = new SparkOnly(values);
        values.throwIfAny("format(\"tablestore-cdc\")", "docs/spark.md");
        return new TablestoreSourceOptions(settings.orElseThrow(), own);
    }

    /** The options both engines share, validated by the core. */
    public SourceSettings settings() {
        return settings;
    }

    /** The instance endpoint with credentials, as the core's SDK adapters take it. */
    public TablestoreEndpoint tablestoreEndpoint() {
        return settings.tablestoreEndpoint();
    }

    public String endpoint() {
        return settings.endpoint();
    }

    public String instanceName() {
        return settings.instanceName();
    }

    public String tableName() {
        return settings.tableName();
    }

    public String tunnelName() {
        return settings.tunnelName();
    }

    public TunnelCreation tunnelCreate() {
        return settings.tunnelCreation();
    }

    /** Where a tunnel this query creates starts its stream. */
    public TunnelStart tunnelStart() {
        return settings.tunnelStart();
    }

    public String metaTable() {
        return settings.metaTable();
    }

    public int metaRetentionBatches() {
        return metaRetentionBatches;
    }

    public OptionalLong maxRowsPerTrigger() {
        return maxRowsPerTrigger > 0 ? OptionalLong.of(maxRowsPerTrigger) : OptionalLong.empty();
    }

    /** Fewer known records than this delay a batch, up to {@link #maxTriggerDelay()}. */
    public OptionalLong minRowsPerTrigger() {
        return minRowsPerTrigger > 0 ? OptionalLong.of(minRowsPerTrigger) : OptionalLong.empty();
    }

    /** How long {@link #minRowsPerTrigger()} may hold a batch back after the previous one. */
    public Duration maxTriggerDelay() {
        return maxTriggerDelay;
    }

    /**
     * At most how often the positions of committed batches are pushed to the tunnel server (zero:
     * after every batch). A batch that finishes a channel is pushed at once, whatever this says.
     */
    public Duration serverProgressInterval() {
        return serverProgressInterval;
    }

    public long maxRowsPerChannel() {
        return maxRowsPerChannel;
    }

    /** The configured cap on channels per input partition; empty for the automatic grouping. */
    public OptionalInt maxChannelsPerPartition() {
        return maxChannelsPerPartition > 0
                ? OptionalInt.of(maxChannelsPerPartition)
                : OptionalInt.empty();
    }

    public Duration channelReadBudget() {
        return channelReadBudget;
    }

    /** What to do with changes older state can no longer read ({@code on.server.ahead}). */
    public ServerAheadPolicy onServerAhead() {
        return settings.onServerAhead();
    }

    public VanishedChannelPolicy onVanishedChannel() {
        return onVanishedChannel;
    }

    public boolean skipInvalidData() {
        return settings.skipInvalidData();
    }

    public boolean ignoreDelete() {
        return settings.ignoreDelete();
    }

    /** Secrets are replaced by {@code ******} (invariant 9). */
    @Override
    public String toString() {
        return "TablestoreSourceOptions{"
                + settings.describe()
                + ", "
                + MAX_ROWS_PER_TRIGGER
                + "="
                + (maxRowsPerTrigger > 0 ? maxRowsPerTrigger : "none")
                + ", "
                + MIN_ROWS_PER_TRIGGER
                + "="
                + (minRowsPerTrigger > 0
                        ? minRowsPerTrigger + ", " + MAX_TRIGGER_DELAY + "=" + maxTriggerDelay
                        : "none")
                + ", "
                + MAX_ROWS_PER_CHANNEL
                + "="
                + maxRowsPerChannel
                + ", "
                + CHANNEL_READ_BUDGET
                + "="
                + channelReadBudget
                + ", "
                + MAX_CHANNELS_PER_PARTITION
                + "="
                + (maxChannelsPerPartition > 0 ? maxChannelsPerPartition : "automatic")
                + ", "
                + ON_VANISHED_CHANNEL
                + "="
                + onVanishedChannel
                + ", "
                + SERVER_PROGRESS_INTERVAL
                + "="
                + serverProgressInterval
                + "}";
    }

    /** Parses 500ms, 10s, 2m, 1h (whole numbers) or an ISO-8601 duration such as PT10S. */
    static Optional<Duration> parseDuration(String text) {
        return OptionValues.parseDuration(text);
    }

    /** The options only Spark has, read with the core's wording. */
    private static final class SparkOnly {
        private final long maxRowsPerTrigger;
        private final long minRowsPerTrigger;
        private final Duration maxTriggerDelay;
        private final long maxRowsPerChannel;
        private final Duration budget;
        private final int maxChannelsPerPartition;
        private final VanishedChannelPolicy onVanished;
        private final Duration serverProgressInterval;

        SparkOnly(OptionValues values) {
            maxRowsPerTrigger = values.wholeNumber(MAX_ROWS_PER_TRIGGER_SPEC, 0);
            minRowsPerTrigger = values.wholeNumber(MIN_ROWS_PER_TRIGGER_SPEC, 0);
            maxTriggerDelay = values.duration(MAX_TRIGGER_DELAY_SPEC);
            if (values.text(MAX_TRIGGER_DELAY).isPresent()
                    && values.text(MIN_ROWS_PER_TRIGGER).isEmpty()) {
                values.problem(
                        "Option '"
                                + MAX_TRIGGER_DELAY
                                + "' only bounds the wait that '"
                                + MIN_ROWS_PER_TRIGGER
                                + "' sets: set "
                                + MIN_ROWS_PER_TRIGGER
                                + " too, or remove "
                                + MAX_TRIGGER_DELAY
                                + ".");
            }
            if (minRowsPerTrigger > 0
                    && maxRowsPerTrigger > 0
                    && minRowsPerTrigger > maxRowsPerTrigger) {
                values.problem(
                        "Option '"
                                + MIN_ROWS_PER_TRIGGER
                                + "' ("
                                + minRowsPerTrigger
                                + ") is larger than '"
                                + MAX_ROWS_PER_TRIGGER
                                + "' ("
                                + maxRowsPerTrigger
                                + "): no batch could satisfy both. Lower "
                                + MIN_ROWS_PER_TRIGGER
                                + " or raise "
                                + MAX_ROWS_PER_TRIGGER
                                + ".");
            }
            maxRowsPerChannel = values.wholeNumber(MAX_ROWS_PER_CHANNEL_SPEC, 0);
            budget = values.duration(CHANNEL_READ_BUDGET_SPEC);
            maxChannelsPerPartition = (int) values.wholeNumber(MAX_CHANNELS_PER_PARTITION_SPEC, 0);
            onVanished = values.choice(ON_VANISHED_CHANNEL_SPEC, VanishedChannelPolicy.class);
            serverProgressInterval = values.duration(SERVER_PROGRESS_INTERVAL_SPEC);
        }
    }

    private static Set<String> known() {
        Set<String> keys = new TreeSet<>();
        SPARK_ONLY_OPTIONS.forEach(option -> keys.add(option.key()));
        for (SourceOption option : SourceOption.values()) {
            keys.add(option.key());
        }
        return Set.copyOf(keys);
    }

    /** Files a key under its lower-case form, or as a problem if it looks like ours but is not. */
    private static void sort(
            String key, String value, Map<String, String> known, List<String> unknown) {
        String normalized = key.trim().toLowerCase(Locale.ROOT);
        if (KNOWN.contains(normalized)) {
            known.put(normalized, value);
            return;
        }
        Optional<String> meant = similarKnown(normalized);
        if (meant.isPresent()) {
            unknown.add(
                    "Unknown option '" + key + "': did you mean '" + meant.get() + "'? Rename it.");
        } else if (hasOurPrefix(normalized)) {
            unknown.add(
                    "Unknown option '"
                            + key
                            + "': remove it or use one of "
                            + new TreeSet<>(KNOWN));
        }
    }

    /** A known option that differs only in dots, dashes, underscores or case. */
    private static Optional<String> similarKnown(String key) {
        String squashed = squash(key);
        return KNOWN.stream().filter(k -> squash(k).equals(squashed)).findFirst();
    }

    private static String squash(String key) {
        return key.replaceAll("[._\\-\\s]", "");
    }

    /** Keys that start like ours are typos or options of a newer version: never ignored. */
    private static boolean hasOurPrefix(String key) {
        int dot = key.indexOf('.');
        if (dot < 0) {
            return false;
        }
        String prefix = key.substring(0, dot + 1);
        return KNOWN.stream().anyMatch(k -> k.startsWith(prefix));
    }
}
