package io.tablestorecdc.pipeline;

import io.tablestorecdc.checkpoint.settings.OptionValues;
import java.util.Locale;
import org.apache.flink.annotation.PublicEvolving;

/** Where a table's schema comes from ({@code schema.mode}). */
@PublicEvolving
public enum SchemaMode {
    /** The columns {@code schema.columns.<table>} declares; other columns are not read. */
    DECLARED,
    /** The columns the table's first rows hold at start; other columns are not read. */
    SAMPLED,
    /** As {@link #SAMPLED}, then each new column or wider type a change carries is added. */
    EVOLVING;

    /** The option text, e.g. {@code evolving}. */
    public String code() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The option text, as {@link #code()}. */
    @Override
    public String toString() {
        return code();
    }

    /** The mode of option text {@code text}, or an error naming the modes there are. */
    public static SchemaMode of(String text) {
        return OptionValues.choiceOf(PipelineOptions.SCHEMA_MODE.key(), text, EVOLVING);
    }
}
