package io.tablestorecdc.checkpoint.settings;

import io.tablestorecdc.checkpoint.annotation.PublicEvolving;
import java.io.Serializable;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One option, declared once: its key, type, default, bounds, whether it is required or secret, and
 * the text that describes it.
 *
 * <p>Every engine reads its options from these declarations: Flink builds its typed {@code
 * ConfigOption}s from them, Spark and the core parse raw option text with {@link OptionValues}
 * against them, and the option tables of the docs are generated from them (a test fails when a page
 * and the code differ). Descriptions may use Markdown code spans and links, as the docs render
 * them.
 */
@PublicEvolving
public final class OptionSpec implements Serializable {

    private static final long serialVersionUID = 1L;

    /** The type of an option's value, as the docs' Type column names it. */
    public enum Type {
        STRING("String"),
        BOOLEAN("Boolean"),
        INTEGER("Integer"),
        LONG("Long"),
        /** {@code 500ms}, {@code 10s}, {@code 2m}, {@code 1h} or ISO-8601 {@code PT10S}. */
        DURATION("Duration"),
        /** One of a fixed set of lower-case words. */
        ENUM("Enum"),
        /** A number of bytes, with or without a unit: {@code 5000}, {@code 64m}, {@code 64 mb}. */
        MEMORY_SIZE("MemorySize");

        private final String label;

        Type(String label) {
            this.label = label;
        }

        /** The name the docs give the type. */
        public String label() {
            return label;
        }
    }

    private static final String NOT_REQUIRED = "no";
    private static final String REQUIRED = "yes";

    private final String key;
    private final Type type;
    private final String defaultValue;
    private final String required;
    private final boolean secret;
    private final String description;
    private final List<String> choices;
    private final Class<? extends Enum<?>> enumClass;
    private final long min;
    private final long max;

    private OptionSpec(Builder b, String description) {
        this.key = b.key;
        this.type = b.type;
        this.defaultValue = b.defaultValue;
        this.required = b.required;
        this.secret = b.secret;
        this.description = Objects.requireNonNull(description, "description");
        this.choices = b.choices;
        this.enumClass = b.enumClass;
        this.min = b.min;
        this.max = b.max;
    }

    private OptionSpec(OptionSpec other, String key, String description) {
        this.key = key;
        this.type = other.type;
        this.defaultValue = other.defaultValue;
        this.required = other.required;
        this.secret = other.secret;
        this.description = Objects.requireNonNull(description, "description");
        this.choices = other.choices;
        this.enumClass = other.enumClass;
        this.min = other.min;
        this.max = other.max;
    }

    /**
     * This option as a source that names its other options differently describes it: the same key,
     * type and default with {@code text} as the description.
     */
    public OptionSpec withDescription(String text) {
        return new OptionSpec(this, key, text);
    }

    /**
     * This option under another key, for an engine that spells it otherwise: the same type,
     * default, bounds and description.
     */
    public OptionSpec withKey(String otherKey) {
        return new OptionSpec(this, new Builder(otherKey).key, description);
    }

    /** Starts the declaration of the option {@code key}. */
    public static Builder key(String key) {
        return new Builder(key);
    }

    /** The option key, dotted lower case; a public contract. */
    public String key() {
        return key;
    }

    /** The type of the option's value. */
    public Type type() {
        return type;
    }

    /** The value in effect when the option is not set, as option text; empty for none. */
    public Optional<String> defaultValue() {
        return Optional.ofNullable(defaultValue);
    }

    /** Whether every source needs it, whatever the other options say. */
    public boolean required() {
        return REQUIRED.equals(required);
    }

    /**
     * When the option is required, as the docs' Required column says it: {@code yes}, {@code no},
     * or the condition ({@code with credentials.provider = static}).
     */
    public String requiredText() {
        return required;
    }

    /** Whether its value is a secret: never logged, never echoed in a message. */
    public boolean secret() {
        return secret;
    }

    /** What the option does, as the docs' tables show it (Markdown code spans and links). */
    public String description() {
        return description;
    }

    /** The values an {@link Type#ENUM} option takes, in declaration order; else empty. */
    public List<String> choices() {
        return choices;
    }

    /** The Java enum an {@link Type#ENUM} option reads into, whose constants print as choices. */
    public Optional<Class<? extends Enum<?>>> enumClass() {
        return Optional.ofNullable(enumClass);
    }

    /** The smallest value a whole-number option takes. */
    public long min() {
        return min;
    }

    /** The largest value a whole-number option takes. */
    public long max() {
        return max;
    }

    /**
     * The type as the docs' Type column shows it, with its bounds or choices: {@code Integer (>=
     * 2)}, {@code Enum (fail, skip)}, {@code Duration (> 0)}.
     */
    public String typeText() {
        return switch (type) {
            case INTEGER, LONG -> type.label() + bounds();
            case DURATION -> type.label() + (min > 0 ? " (> 0)" : "");
            case ENUM -> type.label() + " (" + String.join(", ", choices) + ")";
            default -> type.label();
        };
    }

    private String bounds() {
        long top = type == Type.INTEGER ? Integer.MAX_VALUE : Long.MAX_VALUE;
        if (max >= top) {
            return min == Long.MIN_VALUE || min == Integer.MIN_VALUE ? "" : " (>= " + min + ")";
        }
        return " (" + min + " to " + max + ")";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof OptionSpec other
                && key.equals(other.key)
                && type == other.type
                && Objects.equals(defaultValue, other.defaultValue)
                && required.equals(other.required)
                && secret == other.secret
                && description.equals(other.description)
                && choices.equals(other.choices)
                && min == other.min
                && max == other.max;
    }

    @Override
    public int hashCode() {
        return Objects.hash(key, type, defaultValue, required, description);
    }

    @Override
    public String toString() {
        return "OptionSpec{" + key + ": " + typeText() + "}";
    }

    /** Declares an option: key, then type, then what else applies, then its description. */
    public static final class Builder {
        private final String key;
        private Type type = Type.STRING;
        private String defaultValue;
        private String required = NOT_REQUIRED;
        private boolean secret;
        private List<String> choices = List.of();
        private Class<? extends Enum<?>> enumClass;
        private long min = Long.MIN_VALUE;
        private long max = Long.MAX_VALUE;

        private Builder(String key) {
            if (key == null || !key.matches("[a-z][a-z0-9]*([.\\-][a-z0-9]+)*(\\.<[a-z]+>)?")) {
                throw new IllegalArgumentException(
                        "An option key is dotted lower case, e.g. tunnel.name: '" + key + "'");
            }
            this.key = key;
        }

        /** Free text (the default type). */
        public Builder stringType() {
            type = Type.STRING;
            return this;
        }

        /** {@code true} or {@code false}. */
        public Builder booleanType() {
            type = Type.BOOLEAN;
            return this;
        }

        /** A whole number from {@code min} to {@code max} that fits an {@code int}. */
        public Builder intType(int min, int max) {
            type = Type.INTEGER;
            this.min = min;
            this.max = max;
            return this;
        }

        /** A whole number from {@code min} to {@code max}. */
        public Builder longType(long min, long max) {
            type = Type.LONG;
            this.min = min;
            this.max = max;
            return this;
        }

        /** A number of bytes, with or without a unit; the engine parses it. */
        public Builder memorySizeType() {
            type = Type.MEMORY_SIZE;
            return this;
        }

        /** A duration; zero allowed or not. */
        public Builder durationType(boolean zeroAllowed) {
            type = Type.DURATION;
            this.min = zeroAllowed ? 0 : 1;
            return this;
        }

        /**
         * One of {@code enumClass}'s constants, each written as its {@code toString()} (lower case,
         * e.g. {@code base-and-stream}) and read case-insensitively.
         */
        public Builder enumType(Class<? extends Enum<?>> enumClass) {
            type = Type.ENUM;
            this.enumClass = enumClass;
            this.choices =
                    Arrays.stream(enumClass.getEnumConstants()).map(Object::toString).toList();
            return this;
        }

        /** The value in effect when the option is not set, as option text. */
        public Builder defaultValue(String text) {
            this.defaultValue = Objects.requireNonNull(text, "text");
            return this;
        }

        /** Every source needs it. */
        public Builder required() {
            this.required = REQUIRED;
            return this;
        }

        /** Needed only in some settings, named by {@code condition} ("with ..."). */
        public Builder requiredWhen(String condition) {
            this.required = Objects.requireNonNull(condition, "condition");
            return this;
        }

        /** Never logged, never echoed in a message. */
        public Builder secret() {
            this.secret = true;
            return this;
        }

        /** Completes the declaration. */
        public OptionSpec description(String text) {
            if (type == Type.ENUM && defaultValue != null && !choices.contains(defaultValue)) {
                throw new IllegalArgumentException(
                        "Option '" + key + "': default '" + defaultValue + "' is not a choice");
            }
            return new OptionSpec(this, text);
        }
    }
}
