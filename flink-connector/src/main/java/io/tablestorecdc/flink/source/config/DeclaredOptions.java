package io.tablestorecdc.flink.source.config;

import io.tablestorecdc.checkpoint.settings.OptionSpec;
import io.tablestorecdc.checkpoint.settings.OptionValues;
import java.time.Duration;
import java.util.Arrays;
import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.MemorySize;

/**
 * Flink {@link ConfigOption}s built from the options' declarations ({@link OptionSpec}): the key,
 * the type, the default and the description come from the declaration, and a declaration of another
 * type than asked for fails when the class holding the option loads.
 */
@Internal
public final class DeclaredOptions {

    private DeclaredOptions() {}

    /**
     * A {@link OptionSpec.Type#STRING} option, or a {@link OptionSpec.Type#DURATION} option the
     * core parses from its text (it reads ISO-8601 {@code PT10S} as well as {@code 10s}, which
     * Flink's duration type does not).
     */
    public static ConfigOption<String> text(OptionSpec spec) {
        expect(spec, OptionSpec.Type.STRING, OptionSpec.Type.DURATION);
        ConfigOptions.TypedConfigOptionBuilder<String> typed =
                ConfigOptions.key(spec.key()).stringType();
        return spec.defaultValue()
                .map(typed::defaultValue)
                .orElseGet(typed::noDefaultValue)
                .withDescription(spec.description());
    }

    /** A {@link OptionSpec.Type#BOOLEAN} option. */
    public static ConfigOption<Boolean> flag(OptionSpec spec) {
        expect(spec, OptionSpec.Type.BOOLEAN);
        ConfigOptions.TypedConfigOptionBuilder<Boolean> typed =
                ConfigOptions.key(spec.key()).booleanType();
        return spec.defaultValue()
                .map(d -> typed.defaultValue(Boolean.parseBoolean(d)))
                .orElseGet(typed::noDefaultValue)
                .withDescription(spec.description());
    }

    /** An {@link OptionSpec.Type#INTEGER} option. */
    public static ConfigOption<Integer> integer(OptionSpec spec) {
        expect(spec, OptionSpec.Type.INTEGER);
        ConfigOptions.TypedConfigOptionBuilder<Integer> typed =
                ConfigOptions.key(spec.key()).intType();
        return spec.defaultValue()
                .map(d -> typed.defaultValue(Integer.parseInt(d)))
                .orElseGet(typed::noDefaultValue)
                .withDescription(spec.description());
    }

    /** A {@link OptionSpec.Type#MEMORY_SIZE} option Flink parses ({@code 64 mb}). */
    public static ConfigOption<MemorySize> memorySize(OptionSpec spec) {
        expect(spec, OptionSpec.Type.MEMORY_SIZE);
        ConfigOptions.TypedConfigOptionBuilder<MemorySize> typed =
                ConfigOptions.key(spec.key()).memoryType();
        return spec.defaultValue()
                .map(d -> typed.defaultValue(MemorySize.parse(d)))
                .orElseGet(typed::noDefaultValue)
                .withDescription(spec.description());
    }

    /** A {@link OptionSpec.Type#DURATION} option Flink parses ({@code 10s}, {@code 5 min}). */
    public static ConfigOption<Duration> duration(OptionSpec spec) {
        expect(spec, OptionSpec.Type.DURATION);
        ConfigOptions.TypedConfigOptionBuilder<Duration> typed =
                ConfigOptions.key(spec.key()).durationType();
        return spec.defaultValue()
                .map(d -> typed.defaultValue(OptionValues.parseDuration(d).orElseThrow()))
                .orElseGet(typed::noDefaultValue)
                .withDescription(spec.description());
    }

    /**
     * An {@link OptionSpec.Type#ENUM} option of {@code type}, whose constants print as the option's
     * values (Flink matches a value to a constant's {@code toString()}, ignoring case).
     */
    public static <E extends Enum<E>> ConfigOption<E> choice(OptionSpec spec, Class<E> type) {
        expect(spec, OptionSpec.Type.ENUM);
        if (!spec.enumClass().map(type::equals).orElse(false)) {
            throw new IllegalStateException(spec + " is not declared over " + type.getName());
        }
        ConfigOptions.TypedConfigOptionBuilder<E> typed =
                ConfigOptions.key(spec.key()).enumType(type);
        return spec.defaultValue()
                .map(
                        d ->
                                typed.defaultValue(
                                        Arrays.stream(type.getEnumConstants())
                                                .filter(c -> c.toString().equals(d))
                                                .findFirst()
                                                .orElseThrow()))
                .orElseGet(typed::noDefaultValue)
                .withDescription(spec.description());
    }

    private static void expect(OptionSpec spec, OptionSpec.Type... types) {
        if (!Arrays.asList(types).contains(spec.type())) {
            throw new IllegalStateException(
                    spec + " is declared " + spec.type() + ", not " + Arrays.toString(types));
        }
    }
}
