package io.tablestorecdc.checkpoint.settings;

import io.tablestorecdc.checkpoint.annotation.Internal;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The raw text of a source's options, read into typed values with one wording for every problem.
 *
 * <p>Problems are collected, not thrown one at a time, so that a user sees every wrong option at
 * once; {@link #throwIfAny} raises them together. A message names the option, the value and what to
 * write instead, and never echoes the value of a secret option.
 */
@Internal
public final class OptionValues {

    private static final Pattern SHORT_DURATION =
            Pattern.compile("(\\d+)\\s*(ms|s|sec|seconds?|m|min|minutes?|h|hours?)");

    private final Map<String, String> values = new TreeMap<>();
    private final Function<String, String> howToSet;
    private final List<String> problems = new ArrayList<>();

    /**
     * @param raw option values by exact key (an engine normalizes keys before, if it does)
     * @param howToSet for a key, how a user of this engine sets it, e.g. {@code set it with
     *     .option("tunnel.name", ...)}; completes the message of a missing required option
     */
    public OptionValues(Map<String, String> raw, Function<String, String> howToSet) {
        raw.forEach((k, v) -> values.put(k, v == null ? "" : v.trim()));
        this.howToSet = howToSet;
    }

    /** The value of {@code key}, blanks trimmed; empty when the option is not set. */
    public Optional<String> text(String key) {
        return Optional.ofNullable(values.get(key));
    }

    /** How a user of this engine sets {@code key}, for a message of one's own. */
    public String howToSet(String key) {
        return howToSet.apply(key);
    }

    /** The value of a required option; records a problem (and returns "") when unset or blank. */
    public String required(String key) {
        String text = values.getOrDefault(key, "");
        if (text.isEmpty()) {
            problem(missing(key, howToSet.apply(key)));
        }
        return text;
    }

    /** {@code true} or {@code false}, case-insensitive. */
    public boolean bool(String key, boolean fallback) {
        return parsed(
                key,
                fallback,
                text -> {
                    if (text.equalsIgnoreCase("true") || text.equalsIgnoreCase("false")) {
                        return Boolean.parseBoolean(text.toLowerCase(Locale.ROOT));
                    }
                    throw new IllegalArgumentException(
                            invalidValue(
                                    key,
                                    text,
                                    fallback
                                            ? "use true (default) or false"
                                            : "use true or false (default)"));
                });
    }

    /** A whole number from {@code min} to {@code max}. */
    public long wholeNumber(String key, long fallback, long min, long max) {
        return parsed(
                key,
                fallback,
                text -> {
                    try {
                        long value = Long.parseLong(text);
                        if (value >= min && value <= max) {
                            return value;
                        }
                    } catch (NumberFormatException e) {
                        // reported below
                    }
                    throw new IllegalArgumentException(
                            invalidValue(
                                    key,
                                    text,
                                    "use a whole number"
                                            + (max == Long.MAX_VALUE || max == Integer.MAX_VALUE
                                                    ? " >= " + min
                                                    : " from " + min + " to " + max)));
                });
    }

    /** A positive duration, in the forms {@link #parseDuration} reads. */
    public Duration positiveDuration(String key, Duration fallback) {
        return duration(
                key,
                fallback,
                d -> !d.isZero() && !d.isNegative(),
                "use a positive duration such as 500ms, 10s, 2m or PT10S");
    }

    /** A duration of zero or more, in the forms {@link #parseDuration} reads. */
    public Duration nonNegativeDuration(String key, Duration fallback) {
        return duration(
                key,
                fallback,
                d -> !d.isNegative(),
                "use a duration of zero or more such as 0s, 500ms, 5s or PT5S");
    }

    private Duration duration(
            String key, Duration fallback, Predicate<Duration> allowed, String fix) {
        return parsed(
                key,
                fallback,
                text ->
                        parseDuration(text)
                                .filter(allowed)
                                .orElseThrow(
                                        () ->
                                                new IllegalArgumentException(
                                                        invalidValue(key, text, fix))));
    }

    /**
     * The value of {@code key} read by {@code parser}, or {@code fallback} when it is not set. A
     * parser's {@link IllegalArgumentException} message is recorded as the problem, so a parser
     * words its own message (with {@link #invalidValue}).
     */
    public <T> T parsed(String key, T fallback, Function<String, T> parser) {
        String text = values.get(key);
        if (text == null) {
            return fallback;
        }
        try {
            return parser.apply(text);
        } catch (IllegalArgumentException e) {
            problem(e.getMessage());
            return fallback;
        }
    }

    /**
     * The value of {@code key} as one of {@code fallback}'s enum constants, each written as its
     * {@code toString()} (matched case-insensitively), or {@code fallback} when it is not set. Any
     * other value is a problem that lists the choices, the default first: {@code use fail (default)
     * or skip}.
     */
    public <E extends Enum<E>> E choice(String key, E fallback) {
        return parsed(key, fallback, text -> choiceOf(key, text, fallback));
    }

    /** Reads {@code text} as one of {@code fallback}'s constants; see {@link #choice}. */
    public static <E extends Enum<E>> E choiceOf(String key, String text, E fallback) {
        String trimmed = text == null ? "" : text.trim();
        List<String> names = new ArrayList<>();
        names.add(fallback + " (default)");
        for (E constant : fallback.getDeclaringClass().getEnumConstants()) {
            if (constant.toString().equalsIgnoreCase(trimmed)) {
                return constant;
            }
            if (constant != fallback) {
                names.add(constant.toString());
            }
        }
        int last = names.size() - 1;
        String choices =
                last == 0
                        ? names.get(0)
                        : String.join(", ", names.subList(0, last)) + " or " + names.get(last);
        throw new IllegalArgumentException(invalidValue(key, text, "use " + choices));
    }

    /** The value of a {@link OptionSpec.Type#BOOLEAN} option, its default when unset. */
    public boolean bool(OptionSpec spec) {
        return bool(spec.key(), Boolean.parseBoolean(declaredDefault(spec)));
    }

    /**
     * The value of a whole-number option within its bounds, its default when unset.
     *
     * @param unset the value when the option is unset and declares no default
     */
    public long wholeNumber(OptionSpec spec, long unset) {
        long fallback = spec.defaultValue().map(Long::parseLong).orElse(unset);
        return wholeNumber(spec.key(), fallback, spec.min(), spec.max());
    }

    /** The value of a {@link OptionSpec.Type#DURATION} option, its default when unset. */
    public Duration duration(OptionSpec spec) {
        Duration fallback =
                parseDuration(declaredDefault(spec))
                        .orElseThrow(() -> new IllegalStateException("bad default: " + spec));
        return spec.min() > 0
                ? positiveDuration(spec.key(), fallback)
                : nonNegativeDuration(spec.key(), fallback);
    }

    /** The value of an {@link OptionSpec.Type#ENUM} option, its default when unset. */
    public <E extends Enum<E>> E choice(OptionSpec spec, Class<E> type) {
        String declared = declaredDefault(spec);
        E fallback =
                java.util.Arrays.stream(type.getEnumConstants())
                        .filter(c -> c.toString().equals(declared))
                        .findFirst()
                        .orElseThrow(() -> new IllegalStateException("bad default: " + spec));
        return choice(spec.key(), fallback);
    }

    private static String declaredDefault(OptionSpec spec) {
        return spec.defaultValue()
                .orElseThrow(() -> new IllegalStateException(spec + " declares no default"));
    }

    /** Records a problem worded by the caller. */
    public void problem(String message) {
        problems.add(message);
    }

    public boolean hasProblems() {
        return !problems.isEmpty();
    }

    /** The problems found so far, in the order they were found. */
    public List<String> problems() {
        return List.copyOf(problems);
    }

    /**
     * Throws every problem found, one per line, under {@code Invalid options for <subject>:}.
     *
     * @param subject what was being configured, e.g. {@code format("tablestore-cdc")}
     * @param docsPage the page that lists every option, e.g. {@code docs/spark.md}
     */
    public void throwIfAny(String subject, String docsPage) {
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(
                    "Invalid options for "
                            + subject
                            + ":\n  - "
                            + String.join("\n  - ", problems)
                            + "\nSee "
                            + docsPage
                            + " for every option.");
        }
    }

    /**
     * The one wording of a bad value: {@code Option '<key>' has invalid value '<value>': <fix>}.
     * The value of a secret option is never repeated.
     */
    public static String invalidValue(String key, String value, String fix) {
        boolean secret = SourceOption.byKey(key).map(SourceOption::secret).orElse(false);
        return "Option '"
                + key
                + "' has invalid value '"
                + (secret ? "******" : value)
                + "': "
                + fix;
    }

    /** The one wording of a missing option: {@code Missing required option '<key>': <howToSet>}. */
    public static String missing(String key, String howToSet) {
        return "Missing required option '" + key + "': " + howToSet;
    }

    /** Parses 500ms, 10s, 2m, 1h (whole numbers) or an ISO-8601 duration such as PT10S. */
    public static Optional<Duration> parseDuration(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        Matcher m = SHORT_DURATION.matcher(t);
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
}
