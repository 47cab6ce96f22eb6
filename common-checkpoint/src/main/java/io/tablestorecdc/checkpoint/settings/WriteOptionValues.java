package io.tablestorecdc.checkpoint.settings;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.write.WriteMode;
import io.tablestorecdc.checkpoint.write.WriteSettings;
import java.util.function.Function;

/**
 * The {@link WriteOption}s of one sink, read and checked the same way in both engines.
 *
 * @param mode how a plain row is written
 * @param settings the batch size, retries and delete handling, over the defaults
 */
@Internal
public record WriteOptionValues(WriteMode mode, WriteSettings settings) {

    /**
     * Reads every write option as an engine spells it ({@link WriteOption#flink} or {@link
     * WriteOption#spark}), recording a problem in {@code values} for each bad one; the caller
     * throws them together.
     */
    public static WriteOptionValues read(
            OptionValues values, Function<WriteOption, OptionSpec> spelling) {
        WriteMode mode = values.choice(spelling.apply(WriteOption.MODE), WriteMode.class);
        int maxRows = (int) values.wholeNumber(spelling.apply(WriteOption.MAX_ROWS), 0);
        int maxRetries = (int) values.wholeNumber(spelling.apply(WriteOption.MAX_RETRIES), 0);
        boolean ignoreDelete = values.bool(spelling.apply(WriteOption.IGNORE_DELETE));
        return new WriteOptionValues(
                mode,
                WriteSettings.defaults()
                        .withMaxRows(maxRows)
                        .withMaxRetries(maxRetries)
                        .withIgnoreDelete(ignoreDelete));
    }
}
