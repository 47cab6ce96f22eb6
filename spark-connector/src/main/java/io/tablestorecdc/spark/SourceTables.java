package io.tablestorecdc.spark;

import io.tablestorecdc.checkpoint.table.SdkTableService;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.types.StructType;

/**
 * The tables a source reads, as its options select them, and the primary key of the source's rows
 * (one schema): the key the tables share, or, in the {@value OutputSchema#VALUES} layout, the union
 * of their keys ({@link SourceKey}).
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
     * Each table described (one DescribeTable each).
     *
     * @throws IllegalArgumentException when a table cannot be described
     */
    static Map<String, SdkTableDescriber.Description> describe(
            TablestoreSourceOptions options, List<String> tables) {
        return SdkTableDescriber.describeAll(options.tablestoreEndpoint(), tables);
    }

    /**
     * The output schema of the tables' rows: {@code given} (a user schema), or without one the
     * inferred {@value OutputSchema#VALUES} layout, with {@code _before} when a table's stream
     * carries before-images. Tables of different keys fit only the {@value OutputSchema#VALUES}
     * layout, whose rows carry every table's key columns.
     *
     * @param given the user's schema, or null
     * @throws IllegalArgumentException when the tables' keys do not fit the layout, naming the
     *     tables, their keys and the fix, or when {@code given} does not fit them
     */
    static OutputSchema outputSchema(
            List<String> tables,
            Map<String, SdkTableDescriber.Description> described,
            StructType given) {
        Map<String, List<PrimaryKeyColumn>> keys = new LinkedHashMap<>();
        tables.forEach(table -> keys.put(table, described.get(table).primaryKey()));
        if (given != null && OutputSchema.declaresAttributes(keys.values(), given)) {
            String first = tables.get(0);
            for (String table : tables) {
                requireSameKey("table '" + first + "'", keys.get(first), table, keys.get(table));
            }
        }
        SourceKey key = SourceKey.union(keys);
        boolean before =
                described.values().stream().anyMatch(d -> !d.streamOriginColumns().isEmpty());
        return given == null ? OutputSchema.inferred(key, before) : OutputSchema.of(key, given);
    }

    /**
     * Fails when the rows of a table found while the query runs, of key {@code key}, do not fit the
     * source's rows, whose key columns were fixed when the query started.
     *
     * @throws IllegalArgumentException naming the table, both keys and the fix
     */
    static void requireFits(OutputSchema schema, String table, List<PrimaryKeyColumn> key) {
        if (!schema.valuesMap()) {
            requireSameKey("the source's rows", schema.primaryKey(), table, key);
        } else if (!schema.keyFits(key)) {
            throw new IllegalArgumentException(
                    "Table '"
                            + table
                            + "' has the primary key ("
                            + describe(key)
                            + "), but the source's rows have the key columns ("
                            + describe(schema.primaryKey())
                            + "), fixed when the query started. Restart the query to read it"
                            + " (its rows then carry every table's key columns), or leave it out"
                            + " (table.exclude).");
        }
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
                            + "): rows with declared attribute columns share one primary key."
                            + " Read the tables without a schema, or with the "
                            + OutputSchema.VALUES
                            + " map instead of attribute columns (the rows then carry every"
                            + " table's key columns, null where a table has none), read them in"
                            + " separate queries, or leave '"
                            + table
                            + "' out (table.exclude, or drop it from table.name).");
        }
    }

    private static String describe(List<PrimaryKeyColumn> key) {
        return String.join(", ", key.stream().map(c -> c.name() + " " + c.type().name()).toList());
    }
}
