package io.tablestorecdc.spark;

import io.tablestorecdc.checkpoint.table.SdkTableService;
import java.util.List;
import java.util.Map;

/**
 * The tables a source reads, as its options select them, and the one primary key they must share
 * (the source's rows have one schema).
 */
final class SourceTables {

    private SourceTables() {}

    /**
     * The selected tables, sorted: the one table, the listed ones, or those of the instance that
     * match the pattern now (one ListTable; the meta table never).
     *
     * @throws IllegalArgumentException when a pattern matches no table, naming the tables there are
     */
    static List<String> resolve(TablestoreSourceOptions options) {
        return options.settings()
                .selectedTables(() -> SdkTableService.listTables(options.tablestoreEndpoint()));
    }

    /**
     * Each table described, checked to share one primary key.
     *
     * @throws IllegalArgumentException when a table cannot be described, or when two tables' keys
     *     differ (names, order or types), naming both and the fix
     */
    static Map<String, SdkTableDescriber.Description> describe(
            TablestoreSourceOptions options, List<String> tables) {
        Map<String, SdkTableDescriber.Description> described =
                SdkTableDescriber.describeAll(options.tablestoreEndpoint(), tables);
        String first = tables.get(0);
        for (String table : tables) {
            requireSameKey(
                    "table '" + first + "'",
                    described.get(first).primaryKey(),
                    table,
                    described.get(table).primaryKey());
        }
        return described;
    }

    /**
     * @param reference whose key {@code sourceKey} is, as the message names it
     * @throws IllegalArgumentException when {@code table}'s key is not {@code sourceKey}, naming
     *     both keys and the fix
     */
    static void requireSameKey(
            String reference,
            List<PrimaryKeyColumn> sourceKey,
            String table,
            List<PrimaryKeyColumn> key) {
        if (!key.equals(sourceKey)) {
            throw new IllegalArgumentException(
                    "Table '"
                            + table
                            + "' has the primary key ("
                            + describe(key)
                            + "), but "
                            + reference
                            + " has ("
                            + describe(sourceKey)
                            + "): the rows of one source share one primary key. Read such"
                            + " tables in separate queries, or leave '"
                            + table
                            + "' out (table.exclude, or drop it from table.name).");
        }
    }

    private static String describe(List<PrimaryKeyColumn> key) {
        return String.join(", ", key.stream().map(c -> c.name() + " " + c.type().name()).toList());
    }
}
