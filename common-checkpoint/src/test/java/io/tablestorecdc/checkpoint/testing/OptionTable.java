package io.tablestorecdc.checkpoint.testing;

import io.tablestorecdc.checkpoint.settings.OptionSpec;
import java.util.List;
import java.util.function.Function;

/**
 * Renders option declarations as the docs' option tables: Option | Required | Default | Type |
 * Description, one row per option in the order given.
 */
public final class OptionTable {

    private static final String HEADER =
            "| Option | Required | Default | Type | Description |\n|---|---|---|---|---|\n";

    private OptionTable() {}

    /** The table of {@code specs}, each description as declared. */
    public static String markdown(List<OptionSpec> specs) {
        return markdown(specs, spec -> "");
    }

    /**
     * The table of {@code specs}, each description followed by what {@code more} adds for it (an
     * engine's own remark, such as the builder method that sets it); empty adds nothing.
     */
    public static String markdown(List<OptionSpec> specs, Function<OptionSpec, String> more) {
        StringBuilder table = new StringBuilder(HEADER);
        for (OptionSpec spec : specs) {
            String extra = more.apply(spec);
            table.append("| `")
                    .append(spec.key())
                    .append("` | ")
                    .append(spec.requiredText())
                    .append(" | ")
                    .append(spec.defaultValue().map(d -> "`" + d + "`").orElse("(none)"))
                    .append(" | ")
                    .append(cell(spec.typeText()))
                    .append(" | ")
                    .append(cell(spec.description() + (extra.isEmpty() ? "" : " " + extra)))
                    .append(" |\n");
        }
        return table.toString();
    }

    private static String cell(String text) {
        return text.replace("|", "\\|").replace("\n", " ");
    }
}
