package io.tablestorecdc.checkpoint.settings;

import static io.tablestorecdc.checkpoint.settings.SourceOption.ON_DROPPED_TABLE;
import static io.tablestorecdc.checkpoint.settings.SourceOption.TABLE_DISCOVERY_INTERVAL;
import static io.tablestorecdc.checkpoint.settings.SourceOption.TABLE_EXCLUDE;
import static io.tablestorecdc.checkpoint.settings.SourceOption.TABLE_NAME;
import static io.tablestorecdc.checkpoint.settings.SourceOption.TABLE_PATTERN;

import io.tablestorecdc.checkpoint.annotation.Internal;
import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Which tables a source reads: one table, a list ({@code table.name = orders,users}), or every
 * table whose whole name matches {@code table.pattern} and not {@code table.exclude}, re-evaluated
 * every {@code table.discovery.interval}.
 *
 * <p>A source of one table ({@link #single()}) keeps the form it always had: the same meta rows,
 * the same engine state. A list or a pattern is a multi-table source: one tunnel of the same name
 * per table, one consumer and one owner for all of them.
 */
@Internal
public final class TableSelection implements Serializable {

    /** Characters of regular expressions that no table name holds. */
    private static final String REGEX_ONLY = "*?+[](){}|^$\\";

    private static final long serialVersionUID = 1L;

    /** Option {@code table.discovery.interval} when not set. */
    public static final Duration DEFAULT_DISCOVERY_INTERVAL = Duration.ofMinutes(1);

    private static final int NAMES_SHOWN = 20;

    private final List<String> listed;
    private final String pattern;
    private final String exclude;
    private final Duration discoveryInterval;
    private final DroppedTablePolicy onDropped;
    private transient Pattern compiledPattern;
    private transient Pattern compiledExclude;

    private TableSelection(
            List<String> listed,
            String pattern,
            String exclude,
            Duration discoveryInterval,
            DroppedTablePolicy onDropped) {
        this.listed = List.copyOf(listed);
        this.pattern = pattern;
        this.exclude = exclude;
        this.discoveryInterval = discoveryInterval;
        this.onDropped = onDropped;
    }

    /** The selection of exactly {@code table}. */
    public static TableSelection of(String table) {
        return new TableSelection(
                List.of(table), null, null, Duration.ZERO, DroppedTablePolicy.SKIP);
    }

    /**
     * Reads the selection options ({@code table.name}, {@code table.pattern}, {@code
     * table.exclude}, {@code table.discovery.interval}), recording each problem in {@code values}:
     * the sources read them so, and so does a tool that shows what a source reads.
     */
    public static TableSelection reading(OptionValues values) {
        Optional<String> names = values.text(TABLE_NAME.key()).filter(t -> !t.isEmpty());
        Optional<String> pattern = values.text(TABLE_PATTERN.key()).filter(t -> !t.isEmpty());
        Optional<String> exclude = values.text(TABLE_EXCLUDE.key()).filter(t -> !t.isEmpty());
        boolean intervalSet = values.text(TABLE_DISCOVERY_INTERVAL.key()).isPresent();
        Duration interval = values.duration(TABLE_DISCOVERY_INTERVAL.spec());
        DroppedTablePolicy onDropped =
                values.choice(ON_DROPPED_TABLE.spec(), DroppedTablePolicy.class);
        if (names.isPresent() && pattern.isPresent()) {
            values.problem(
                    "Options '"
                            + TABLE_NAME.key()
                            + "' and '"
                            + TABLE_PATTERN.key()
                            + "' are both set: set "
                            + TABLE_NAME.key()
                            + " to read the tables it lists, or "
                            + TABLE_PATTERN.key()
                            + " to read every table whose name matches it, not both");
        } else if (names.isEmpty() && pattern.isEmpty()) {
            values.problem(
                    OptionValues.missing(TABLE_NAME.key(), values.howToSet(TABLE_NAME.key()))
                            + " (or "
                            + TABLE_PATTERN.key()
                            + " to read every table whose name matches a regular expression)");
        }
        if (pattern.isEmpty()) {
            if (exclude.isPresent()) {
                values.problem(onlyWithPattern(TABLE_EXCLUDE.key()));
            }
            if (intervalSet) {
                values.problem(onlyWithPattern(TABLE_DISCOVERY_INTERVAL.key()));
            }
        }
        pattern.ifPresent(p -> compile(values, TABLE_PATTERN.key(), p));
        exclude.ifPresent(p -> compile(values, TABLE_EXCLUDE.key(), p));
        List<String> listed = names.map(n -> split(values, n)).orElse(List.of());
        return new TableSelection(
                listed,
                pattern.orElse(null),
                exclude.orElse(null),
                pattern.isPresent() ? interval : Duration.ZERO,
                onDropped);
    }

    private static String onlyWithPattern(String key) {
        return "Option '"
                + key
                + "' applies only with "
                + TABLE_PATTERN.key()
                + ": set "
                + TABLE_PATTERN.key()
                + ", or remove "
                + key;
    }

    private static void compile(OptionValues values, String key, String regex) {
        try {
            Pattern.compile(regex);
        } catch (PatternSyntaxException e) {
            values.problem(
                    OptionValues.invalidValue(
                            key,
                            regex,
                            "it is not a Java regular expression ("
                                    + e.getDescription()
                                    + " near index "
                                    + e.getIndex()
                                    + "); a pattern must match a whole table name, for example"
                                    + " orders_.* or (orders|users)"));
        }
    }

    private static List<String> split(OptionValues values, String text) {
        Set<String> names = new LinkedHashSet<>();
        for (String part : text.split(",", -1)) {
            String name = part.trim();
            if (name.isEmpty()) {
                values.problem(
                        OptionValues.invalidValue(
                                TABLE_NAME.key(),
                                text,
                                "it holds an empty table name; separate table names with single"
                                        + " commas, for example orders,users"));
                return List.of();
            }
            if (name.chars().anyMatch(c -> REGEX_ONLY.indexOf(c) >= 0)) {
                values.problem(
                        OptionValues.invalidValue(
                                TABLE_NAME.key(),
                                text,
                                "'"
                                        + name
                                        + "' is not a table name (a table name holds letters,"
                                        + " digits and underscores); to read every table whose"
                                        + " name matches a regular expression, set "
                                        + TABLE_PATTERN.key()
                                        + " = '"
                                        + name
                                        + "' instead of "
                                        + TABLE_NAME.key()));
                return List.of();
            }
            if (!names.add(name)) {
                values.problem(
                        OptionValues.invalidValue(
                                TABLE_NAME.key(),
                                text,
                                "table '" + name + "' is listed twice; list each table once"));
                return List.of();
            }
        }
        return new ArrayList<>(names);
    }

    /**
     * Whether this is a source of one named table, whose state and meta rows keep the one-table
     * form. A pattern is never single, even when it matches one table: the tables it matches may
     * change while the source runs.
     */
    public boolean single() {
        return pattern == null && listed.size() == 1;
    }

    /** The tables {@code table.name} lists, in the order given; empty with a pattern. */
    public List<String> listed() {
        return listed;
    }

    /** {@code table.pattern}, if set. */
    public Optional<String> pattern() {
        return Optional.ofNullable(pattern);
    }

    /** {@code table.exclude}, if set. */
    public Optional<String> exclude() {
        return Optional.ofNullable(exclude);
    }

    /**
     * How often a pattern is evaluated again while the source runs; zero for only at start (and
     * always zero for a list).
     */
    public Duration discoveryInterval() {
        return discoveryInterval;
    }

    /** What a source of several tables does when a table it reads is gone. */
    public DroppedTablePolicy onDroppedTable() {
        return onDropped;
    }

    /** Whether the source looks for new matching tables while it runs. */
    public boolean discovers() {
        return pattern != null && !discoveryInterval.isZero();
    }

    /**
     * Whether the pattern selects {@code table} (a listed table is selected when listed). The meta
     * table is never selected.
     */
    public boolean selects(String table, String metaTable) {
        if (table.equals(metaTable)) {
            return false;
        }
        if (pattern == null) {
            return listed.contains(table);
        }
        return compiledPattern().matcher(table).matches()
                && (exclude == null || !compiledExclude().matcher(table).matches());
    }

    /**
     * The listed tables, sorted by name, without asking the instance (a table that does not exist
     * fails when its tunnel is opened).
     *
     * @throws IllegalArgumentException when the list names the meta table
     */
    public List<String> listedTables(String metaTable) {
        if (listed.contains(metaTable)) {
            throw new IllegalArgumentException(
                    "Option '"
                            + TABLE_NAME.key()
                            + "' names the meta table '"
                            + metaTable
                            + "', which holds the source's own progress and has no changes"
                            + " to read: remove it from the list.");
        }
        return new ArrayList<>(new TreeSet<>(listed));
    }

    /**
     * The tables to read among the instance's {@code existing} tables, sorted by name.
     *
     * @param instance the instance name, for messages
     * @throws IllegalArgumentException when a listed table does not exist, or the pattern selects
     *     none, naming the tables and the fix
     */
    public List<String> resolve(Collection<String> existing, String metaTable, String instance) {
        Set<String> tables = new TreeSet<>(existing);
        if (pattern == null) {
            List<String> missing = listed.stream().filter(t -> !tables.contains(t)).toList();
            if (!missing.isEmpty()) {
                throw new IllegalArgumentException(
                        "Option '"
                                + TABLE_NAME.key()
                                + "' names "
                                + (missing.size() == 1 ? "a table" : "tables")
                                + " that instance '"
                                + instance
                                + "' does not hold: "
                                + String.join(", ", missing)
                                + ". Its tables: "
                                + shown(tables)
                                + ". Create the table, or fix the name.");
            }
            return listedTables(metaTable);
        }
        List<String> selected = tables.stream().filter(t -> selects(t, metaTable)).toList();
        if (selected.isEmpty()) {
            throw new IllegalArgumentException(
                    "Option '"
                            + TABLE_PATTERN.key()
                            + "' = '"
                            + pattern
                            + "'"
                            + (exclude == null
                                    ? ""
                                    : " with " + TABLE_EXCLUDE.key() + " = '" + exclude + "'")
                            + " selects no table of instance '"
                            + instance
                            + "' (the pattern must match a whole table name; the meta table '"
                            + metaTable
                            + "' is never read). Its tables: "
                            + shown(tables)
                            + ". Fix the pattern, or create a matching table first.");
        }
        return selected;
    }

    private static String shown(Set<String> tables) {
        if (tables.isEmpty()) {
            return "none";
        }
        List<String> names = new ArrayList<>(tables);
        return names.size() <= NAMES_SHOWN
                ? String.join(", ", names)
                : String.join(", ", names.subList(0, NAMES_SHOWN))
                        + " and "
                        + (names.size() - NAMES_SHOWN)
                        + " more";
    }

    private Pattern compiledPattern() {
        if (compiledPattern == null) {
            compiledPattern = Pattern.compile(pattern);
        }
        return compiledPattern;
    }

    private Pattern compiledExclude() {
        if (compiledExclude == null) {
            compiledExclude = Pattern.compile(exclude);
        }
        return compiledExclude;
    }

    /** The selection options as {@code key=value} pairs. */
    public String describe() {
        String dropped =
                onDropped == DroppedTablePolicy.FAIL ? ", " + ON_DROPPED_TABLE.key() + "=fail" : "";
        if (pattern == null) {
            return TABLE_NAME.key() + "=" + String.join(",", listed) + dropped;
        }
        return TABLE_PATTERN.key()
                + "="
                + pattern
                + (exclude == null ? "" : ", " + TABLE_EXCLUDE.key() + "=" + exclude)
                + ", "
                + TABLE_DISCOVERY_INTERVAL.key()
                + "="
                + text(discoveryInterval)
                + dropped;
    }

    /** A duration as the options spell it: {@code 90s}, {@code 500ms}. */
    public static String text(Duration duration) {
        long millis = duration.toMillis();
        return millis % 1000 == 0 ? millis / 1000 + "s" : millis + "ms";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TableSelection other
                && listed.equals(other.listed)
                && Objects.equals(pattern, other.pattern)
                && Objects.equals(exclude, other.exclude)
                && discoveryInterval.equals(other.discoveryInterval)
                && onDropped == other.onDropped;
    }

    @Override
    public int hashCode() {
        return Objects.hash(listed, pattern, exclude, discoveryInterval);
    }

    @Override
    public String toString() {
        return "TableSelection{" + describe() + "}";
    }
}
