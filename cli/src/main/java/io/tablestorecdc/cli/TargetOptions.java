package io.tablestorecdc.cli;

import io.tablestorecdc.checkpoint.settings.OptionValues;
import io.tablestorecdc.checkpoint.settings.SourceOption;
import io.tablestorecdc.checkpoint.settings.TableSelection;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Option;

/** The {@code --table} and {@code --tunnel} options, declared once for every command. */
final class TargetOptions {

    private TargetOptions() {}

    /** {@code --table}: the data table a command acts on. */
    static final class Table {
        @Option(names = "--table", required = true, description = "The data table.")
        String name;
    }

    /**
     * {@code --table a,b} or {@code --table-pattern REGEX [--table-exclude REGEX]}: the tables of a
     * source, as its options {@code table.name}, {@code table.pattern} and {@code table.exclude}
     * select them, read by the core's own {@link TableSelection} (same rules, same messages, in the
     * command line's option names).
     */
    static final class Tables {

        /** The sources' option keys and the options that stand for them here. */
        private static final Map<String, String> FLAGS = new LinkedHashMap<>();

        static {
            FLAGS.put(SourceOption.TABLE_NAME.key(), "--table");
            FLAGS.put(SourceOption.TABLE_PATTERN.key(), "--table-pattern");
            FLAGS.put(SourceOption.TABLE_EXCLUDE.key(), "--table-exclude");
        }

        private static final Pattern KEY =
                Pattern.compile(
                        "(?<![\\w.-])("
                                + String.join(
                                        "|", FLAGS.keySet().stream().map(Pattern::quote).toList())
                                + ")(?!\\w|\\.\\w)");

        @Option(
                names = "--table",
                paramLabel = "TABLE[,TABLE...]",
                description =
                        "The data table, or a comma-separated list of the tables of one source"
                                + " (its table.name).")
        String names;

        @Option(
                names = "--table-pattern",
                paramLabel = "REGEX",
                description =
                        "Instead of --table: every table whose whole name matches this Java"
                                + " regular expression (a source's table.pattern); never the meta"
                                + " table.")
        String pattern;

        @Option(
                names = "--table-exclude",
                paramLabel = "REGEX",
                description =
                        "With --table-pattern: leave out the tables whose whole name matches this"
                                + " (a source's table.exclude).")
        String exclude;

        /**
         * The selection these options give, checked as a source checks its options.
         *
         * @throws UsageException naming every problem and its fix
         */
        TableSelection selection() {
            Map<String, String> raw = new LinkedHashMap<>();
            put(raw, SourceOption.TABLE_NAME.key(), names);
            put(raw, SourceOption.TABLE_PATTERN.key(), pattern);
            put(raw, SourceOption.TABLE_EXCLUDE.key(), exclude);
            OptionValues values =
                    new OptionValues(
                            raw,
                            key ->
                                    "give a table, or a comma-separated list of the tables of one"
                                            + " source");
            TableSelection selection = TableSelection.reading(values);
            List<String> problems = values.problems();
            if (problems.size() == 1) {
                throw new UsageException(inOptionNames(problems.get(0)));
            }
            if (!problems.isEmpty()) {
                throw new UsageException(
                        "The table options are wrong:\n  - "
                                + String.join(
                                        "\n  - ",
                                        problems.stream().map(this::inOptionNames).toList()));
            }
            return selection;
        }

        /**
         * The tables {@code selection} selects on the instance, sorted: the one table as given (a
         * single table is not looked up, as before), else one ListTable resolved by the core. A
         * list is read as given when the instance cannot be listed (a source of a list needs no
         * ListTable permission either): a table that does not exist then fails when its tunnel is
         * described.
         *
         * @throws UsageException when a listed table does not exist, or the pattern selects none
         * @throws ListTablesException when a pattern's instance cannot be listed
         */
        List<String> resolve(TableSelection selection, Service service) {
            if (selection.single()) {
                return selection.listed();
            }
            List<String> existing;
            try {
                existing = service.listTables();
            } catch (IllegalStateException e) {
                if (selection.pattern().isEmpty()) {
                    return selection.listed().stream().sorted().toList();
                }
                throw new ListTablesException(inOptionNames(e.getMessage()), e);
            }
            try {
                return selection.resolve(existing, service.metaTable(), service.instance());
            } catch (IllegalArgumentException e) {
                throw new UsageException(inOptionNames(e.getMessage()));
            }
        }

        private static void put(Map<String, String> raw, String key, String value) {
            if (value != null) {
                raw.put(key, value);
            }
        }

        /**
         * A core message with the sources' option keys replaced by this command's options; the
         * values the user gave (a pattern may hold such a key) are kept as they are.
         */
        String inOptionNames(String message) {
            List<String> kept = new ArrayList<>();
            String text = message;
            for (String value : new String[] {names, pattern, exclude}) {
                if (value == null || value.isBlank()) {
                    continue;
                }
                String quoted = "'" + value.trim() + "'";
                if (text.contains(quoted)) {
                    text = text.replace(quoted, "\u0000" + kept.size() + "\u0000");
                    kept.add(quoted);
                }
            }
            Matcher key = KEY.matcher(text);
            StringBuilder out = new StringBuilder();
            while (key.find()) {
                key.appendReplacement(out, Matcher.quoteReplacement(FLAGS.get(key.group(1))));
            }
            key.appendTail(out);
            text = out.toString();
            for (int i = 0; i < kept.size(); i++) {
                text = text.replace("\u0000" + i + "\u0000", kept.get(i));
            }
            return text;
        }
    }

    /** {@code --tunnel}: the tunnel a command acts on. */
    static final class Tunnel {
        @Option(names = "--tunnel", required = true, description = "The tunnel name.")
        String name;
    }
}
