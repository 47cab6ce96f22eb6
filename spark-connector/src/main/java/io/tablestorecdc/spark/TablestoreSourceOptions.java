package io.tablestorecdc.spark;

import io.tablestorecdc.checkpoint.merge.VanishedChannelPolicy;
import io.tablestorecdc.checkpoint.meta.SdkMetaTableClient;
import io.tablestorecdc.checkpoint.model.TablestoreCredentials;
import io.tablestorecdc.checkpoint.model.TablestoreEndpoint;
import io.tablestorecdc.checkpoint.model.TunnelType;
import io.tablestorecdc.checkpoint.tunnel.TunnelStart;
import java.io.Serializable;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The options of {@code format("tablestore-cdc")}: every key declared once here, parsed
 * case-insensitively and validated when the stream is loaded.
 *
 * <p>Serializable because executors build their own SDK clients from it. The access key secret and
 * the STS token never appear in {@link #toString()} (invariant 9).
 */
public final class TablestoreSourceOptions implements Serializable {

    private static final long serialVersionUID = 1L;

    public static final String ENDPOINT = "endpoint";
    public static final String INSTANCE_NAME = "instance.name";
    public static final String ACCESS_KEY_ID = "access.key.id";
    public static final String ACCESS_KEY_SECRET = "access.key.secret";
    public static final String STS_TOKEN = "sts.token";
    public static final String TABLE_NAME = "table.name";
    public static final String TUNNEL_NAME = "tunnel.name";
    public static final String TUNNEL_CREATE = "tunnel.create";
    public static final String TUNNEL_START = "tunnel.start";
    public static final String META_TABLE = "meta.table";
    public static final String META_RETENTION_BATCHES = "meta.retention.batches";
    public static final String MAX_ROWS_PER_TRIGGER = "max.rows.per.trigger";
    public static final String MAX_ROWS_PER_CHANNEL = "max.rows.per.channel";
    public static final String CHANNEL_READ_BUDGET = "channel.read.budget";
    public static final String MAX_CHANNELS_PER_PARTITION = "max.channels.per.partition";
    public static final String ON_VANISHED_CHANNEL = VanishedChannelPolicy.OPTION_KEY;
    public static final String SKIP_INVALID_DATA = "skip.invalid.data";
    public static final String IGNORE_DELETE = "ignore.delete";

    public static final int DEFAULT_META_RETENTION_BATCHES = 100;
    public static final long DEFAULT_MAX_ROWS_PER_CHANNEL = 100_000L;
    public static final Duration DEFAULT_CHANNEL_READ_BUDGET = Duration.ofSeconds(10);

    /** Every option this source reads. */
    public static final Set<String> KNOWN =
            Set.of(
                    ENDPOINT,
                    INSTANCE_NAME,
                    ACCESS_KEY_ID,
                    ACCESS_KEY_SECRET,
                    STS_TOKEN,
                    TABLE_NAME,
                    TUNNEL_NAME,
                    TUNNEL_CREATE,
                    TUNNEL_START,
                    META_TABLE,
                    META_RETENTION_BATCHES,
                    MAX_ROWS_PER_TRIGGER,
                    MAX_ROWS_PER_CHANNEL,
                    CHANNEL_READ_BUDGET,
                    MAX_CHANNELS_PER_PARTITION,
                    ON_VANISHED_CHANNEL,
                    SKIP_INVALID_DATA,
                    IGNORE_DELETE);

    private static final List<String> REQUIRED =
            List.of(
                    ENDPOINT,
                    INSTANCE_NAME,
                    ACCESS_KEY_ID,
                    ACCESS_KEY_SECRET,
                    TABLE_NAME,
                    TUNNEL_NAME);

    private static final Pattern DURATION =
            Pattern.compile("(\\d+)\\s*(ms|s|sec|seconds?|m|min|minutes?|h|hours?)");

    /** Whether and how this query creates its tunnel when it does not exist. */
    public enum TunnelCreation {
        NONE("none"),
        STREAM("stream"),
        BASE("base"),
        BASE_AND_STREAM("base-and-stream");

        private final String value;

        TunnelCreation(String value) {
            this.value = value;
        }

        public String value() {
            return value;
        }

        /** The tunnel type to create; empty for {@link #NONE}. */
        public Optional<TunnelType> tunnelType() {
            return switch (this) {
                case NONE -> Optional.empty();
                case STREAM -> Optional.of(TunnelType.STREAM);
                case BASE -> Optional.of(TunnelType.BASE_DATA);
                case BASE_AND_STREAM -> Optional.of(TunnelType.BASE_AND_STREAM);
            };
        }
    }

    private final String endpoint;
    private final String instanceName;
    private final String accessKeyId;
    private final String accessKeySecret;
    private final String stsToken;
    private final String tableName;
    private final String tunnelName;
    private final TunnelCreation tunnelCreate;
    private final String tunnelStart;
    private final String metaTable;
    private final int metaRetentionBatches;
    private final long maxRowsPerTrigger;
    private final long maxRowsPerChannel;
    private final Duration channelReadBudget;
    private final int maxChannelsPerPartition;
    private final VanishedChannelPolicy onVanishedChannel;
    private final boolean skipInvalidData;
    private final boolean ignoreDelete;

    private TablestoreSourceOptions(Parser p) {
        this.endpoint = p.values.get(ENDPOINT);
        this.instanceName = p.values.get(INSTANCE_NAME);
        this.accessKeyId = p.values.get(ACCESS_KEY_ID);
        this.accessKeySecret = p.values.get(ACCESS_KEY_SECRET);
        this.stsToken = p.values.get(STS_TOKEN);
        this.tableName = p.values.get(TABLE_NAME);
        this.tunnelName = p.values.get(TUNNEL_NAME);
        this.tunnelCreate = p.tunnelCreate;
        this.tunnelStart = p.tunnelStartText;
        this.metaTable = p.metaTable;
        this.metaRetentionBatches = p.retention;
        this.maxRowsPerTrigger = p.maxRowsPerTrigger;
        this.maxRowsPerChannel = p.maxRowsPerChannel;
        this.channelReadBudget = p.budget;
        this.maxChannelsPerPartition = p.maxChannelsPerPartition;
        this.onVanishedChannel = p.onVanished;
        this.skipInvalidData = p.skipInvalid;
        this.ignoreDelete = p.ignoreDelete;
    }

    /**
     * Parses and validates the options (keys are case-insensitive).
     *
     * @throws IllegalArgumentException listing every problem, each naming the option and the fix
     */
    public static TablestoreSourceOptions parse(Map<String, String> options) {
        Parser parser = new Parser(options);
        parser.parseAll();
        if (!parser.problems.isEmpty()) {
            throw new IllegalArgumentException(
                    "Invalid options for format(\"tablestore-cdc\"):\n  - "
                            + String.join("\n  - ", parser.problems)
                            + "\nSee docs/spark.md for every option.");
        }
        return new TablestoreSourceOptions(parser);
    }

    /** The instance endpoint with credentials, as the core's SDK adapters take it. */
    public TablestoreEndpoint tablestoreEndpoint() {
        return new TablestoreEndpoint(endpoint, instanceName, credentials());
    }

    private TablestoreCredentials credentials() {
        return TablestoreCredentials.of(accessKeyId, accessKeySecret, stsToken);
    }

    public String endpoint() {
        return endpoint;
    }

    public String instanceName() {
        return instanceName;
    }

    public String tableName() {
        return tableName;
    }

    public String tunnelName() {
        return tunnelName;
    }

    public TunnelCreation tunnelCreate() {
        return tunnelCreate;
    }

    /** Where a tunnel this query creates starts its stream. */
    public TunnelStart tunnelStart() {
        return startFrom(tunnelStart);
    }

    public String metaTable() {
        return metaTable;
    }

    public int metaRetentionBatches() {
        return metaRetentionBatches;
    }

    public OptionalLong maxRowsPerTrigger() {
        return maxRowsPerTrigger > 0 ? OptionalLong.of(maxRowsPerTrigger) : OptionalLong.empty();
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

    public VanishedChannelPolicy onVanishedChannel() {
        return onVanishedChannel;
    }

    public boolean skipInvalidData() {
        return skipInvalidData;
    }

    public boolean ignoreDelete() {
        return ignoreDelete;
    }

    private static TunnelStart startFrom(String text) {
        return switch (text.toLowerCase(Locale.ROOT)) {
            case "latest" -> TunnelStart.latest();
            case "earliest" -> TunnelStart.earliest();
            default -> TunnelStart.at(Instant.parse(text));
        };
    }

    /** Secrets are replaced by {@code ******} (invariant 9). */
    @Override
    public String toString() {
        return "TablestoreSourceOptions{endpoint="
                + endpoint
                + ", instance.name="
                + instanceName
                + ", access.key.id="
                + accessKeyId
                + ", access.key.secret=******"
                + (stsToken == null ? "" : ", sts.token=******")
                + ", table.name="
                + tableName
                + ", tunnel.name="
                + tunnelName
                + ", tunnel.create="
                + tunnelCreate.value()
                + ", meta.table="
                + metaTable
                + "}";
    }

    /** Collects every problem instead of stopping at the first. */
    private static final class Parser {
        private final Map<String, String> values = new TreeMap<>();
        private final List<String> problems = new ArrayList<>();
        private TunnelCreation tunnelCreate = TunnelCreation.NONE;
        private String tunnelStartText = "latest";
        private String metaTable = SdkMetaTableClient.DEFAULT_TABLE_NAME;
        private int retention = DEFAULT_META_RETENTION_BATCHES;
        private long maxRowsPerTrigger;
        private long maxRowsPerChannel = DEFAULT_MAX_ROWS_PER_CHANNEL;
        private Duration budget = DEFAULT_CHANNEL_READ_BUDGET;
        private int maxChannelsPerPartition;
        private VanishedChannelPolicy onVanished = VanishedChannelPolicy.FAIL;
        private boolean skipInvalid;
        private boolean ignoreDelete;

        Parser(Map<String, String> raw) {
            raw.forEach(this::accept);
        }

        private void accept(String key, String value) {
            String normalized = key.trim().toLowerCase(Locale.ROOT);
            if (KNOWN.contains(normalized)) {
                values.put(normalized, value == null ? "" : value.trim());
                return;
            }
            Optional<String> meant = similarKnown(normalized);
            if (meant.isPresent()) {
                problems.add(
                        "Unknown option '"
                                + key
                                + "': did you mean '"
                                + meant.get()
                                + "'? Rename it.");
            } else if (hasOurPrefix(normalized)) {
                problems.add(
                        "Unknown option '"
                                + key
                                + "': remove it or use one of "
                                + new TreeSet<>(KNOWN));
            }
        }

        void parseAll() {
            for (String required : REQUIRED) {
                if (values.getOrDefault(required, "").isEmpty()) {
                    problems.add(
                            "Missing required option '"
                                    + required
                                    + "': set it with .option(\""
                                    + required
                                    + "\", ...)");
                }
            }
            checkEndpoint();
            tunnelCreate = parseTunnelCreate();
            tunnelStartText = parseTunnelStart();
            metaTable = values.getOrDefault(META_TABLE, metaTable);
            retention = (int) parseLong(META_RETENTION_BATCHES, retention, 2, Integer.MAX_VALUE);
            maxRowsPerTrigger = parseLong(MAX_ROWS_PER_TRIGGER, 0, 1, Long.MAX_VALUE);
            maxRowsPerChannel =
                    parseLong(MAX_ROWS_PER_CHANNEL, maxRowsPerChannel, 1, Long.MAX_VALUE);
            budget = parseBudget();
            maxChannelsPerPartition =
                    (int) parseLong(MAX_CHANNELS_PER_PARTITION, 0, 1, Integer.MAX_VALUE);
            onVanished = parseVanished();
            skipInvalid = parseBoolean(SKIP_INVALID_DATA);
            ignoreDelete = parseBoolean(IGNORE_DELETE);
        }

        private void checkEndpoint() {
            String ep = values.getOrDefault(ENDPOINT, "");
            String instance = values.getOrDefault(INSTANCE_NAME, "");
            if (ep.isEmpty() || instance.isEmpty()) {
                return;
            }
            try {
                new TablestoreEndpoint(ep, instance, TablestoreCredentials.of("id", "secret"));
            } catch (IllegalArgumentException e) {
                String option =
                        e.getMessage().startsWith("Invalid endpoint") ? ENDPOINT : INSTANCE_NAME;
                problems.add("Option '" + option + "': " + e.getMessage());
            }
        }

        private TunnelCreation parseTunnelCreate() {
            String text = values.getOrDefault(TUNNEL_CREATE, "none").toLowerCase(Locale.ROOT);
            for (TunnelCreation c : TunnelCreation.values()) {
                if (c.value().equals(text)) {
                    return c;
                }
            }
            problems.add(
                    "Option '"
                            + TUNNEL_CREATE
                            + "' has invalid value '"
                            + text
                            + "': use none (default), stream, base or base-and-stream");
            return TunnelCreation.NONE;
        }

        private String parseTunnelStart() {
            String text = values.get(TUNNEL_START);
            if (text == null) {
                return "latest";
            }
            if (tunnelCreate == TunnelCreation.NONE || tunnelCreate == TunnelCreation.BASE) {
                problems.add(
                        "Option '"
                                + TUNNEL_START
                                + "' applies only when this query creates a tunnel with a stream"
                                + " part: set "
                                + TUNNEL_CREATE
                                + " to stream or base-and-stream, or remove "
                                + TUNNEL_START
                                + " (an existing tunnel keeps the start it was created with)");
                return "latest";
            }
            try {
                startFrom(text);
                return text;
            } catch (DateTimeParseException e) {
                problems.add(
                        "Option '"
                                + TUNNEL_START
                                + "' has invalid value '"
                                + text
                                + "': use latest (default), earliest or an ISO-8601 instant such"
                                + " as 2024-05-01T00:00:00Z");
                return "latest";
            }
        }

        private long parseLong(String option, long fallback, long min, long max) {
            String text = values.get(option);
            if (text == null) {
                return fallback;
            }
            try {
                long value = Long.parseLong(text);
                if (value >= min && value <= max) {
                    return value;
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            problems.add(
                    "Option '"
                            + option
                            + "' has invalid value '"
                            + text
                            + "': use a whole number"
                            + (max == Long.MAX_VALUE
                                    ? " >= " + min
                                    : " from " + min + " to " + max));
            return fallback;
        }

        private Duration parseBudget() {
            String text = values.get(CHANNEL_READ_BUDGET);
            if (text == null) {
                return budget;
            }
            Optional<Duration> parsed = parseDuration(text);
            if (parsed.isPresent() && !parsed.get().isZero() && !parsed.get().isNegative()) {
                return parsed.get();
            }
            problems.add(
                    "Option '"
                            + CHANNEL_READ_BUDGET
                            + "' has invalid value '"
                            + text
                            + "': use a positive duration such as 500ms, 10s, 2m or PT10S");
            return budget;
        }

        private VanishedChannelPolicy parseVanished() {
            String text = values.get(ON_VANISHED_CHANNEL);
            if (text == null) {
                return onVanished;
            }
            try {
                return VanishedChannelPolicy.fromOption(text);
            } catch (IllegalArgumentException e) {
                problems.add("Option '" + ON_VANISHED_CHANNEL + "': " + e.getMessage());
                return onVanished;
            }
        }

        private boolean parseBoolean(String option) {
            String text = values.getOrDefault(option, "false").toLowerCase(Locale.ROOT);
            if (text.equals("true") || text.equals("false")) {
                return Boolean.parseBoolean(text);
            }
            problems.add(
                    "Option '"
                            + option
                            + "' has invalid value '"
                            + text
                            + "': use true or false (default)");
            return false;
        }
    }

    /** Parses 500ms, 10s, 2m, 1h (whole numbers) or an ISO-8601 duration such as PT10S. */
    static Optional<Duration> parseDuration(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        Matcher m = DURATION.matcher(t);
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            String unit = m.group(2);
            if (unit.equals("ms")) {
                return Optional.of(Duration.ofMillis(n));
            }
            return Optional.of(
                    switch (unit.charAt(0)) {
                        case 's' -> Duration.ofSeconds(n);
                        case 'm' -> Duration.ofMinutes(n);
                        default -> Duration.ofHours(n);
                    });
        }
        try {
            return Optional.of(Duration.parse(text.trim()));
        } catch (DateTimeParseException e) {
            return Optional.empty();
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
