package io.tablestorecdc.checkpoint.meta;

import io.tablestorecdc.checkpoint.annotation.Internal;
import java.util.Objects;

/**
 * One attribute value of a meta-table row: the meta table stores only strings and integers, and any
 * other type found in a row is kept as {@link Other} so that the decoder can name it in an error.
 */
@Internal
public sealed interface MetaValue {

    /** A STRING attribute. */
    record Text(String value) implements MetaValue {
        public Text {
            Objects.requireNonNull(value, "value");
        }
    }

    /** An INTEGER (64-bit) attribute. */
    record Int(long value) implements MetaValue {}

    /** An attribute of a type the meta table never writes (for example one edited by hand). */
    record Other(String typeName) implements MetaValue {
        public Other {
            Objects.requireNonNull(typeName, "typeName");
        }
    }

    static MetaValue text(String value) {
        return new Text(value);
    }

    static MetaValue integer(long value) {
        return new Int(value);
    }
}
