package io.tablestorecdc.spark.read;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.model.CellValue;
import io.tablestorecdc.checkpoint.table.SampledColumns;
import io.tablestorecdc.spark.OutputSchema;
import io.tablestorecdc.spark.PrimaryKeyColumn;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The rows a batch read of {@code format("tablestore")} produces, with the rules of the {@code
 * tablestore-cdc} source's {@link OutputSchema}: the primary-key columns (from DescribeTable), then
 * either the attribute columns a user schema declares, with types, or one {@value
 * OutputSchema#VALUES} map of every attribute value as a string. Without a user schema the read has
 * the map layout: Tablestore tables have no fixed attribute columns.
 */
@Internal
public final class TableReadSchema {

    private TableReadSchema() {}

    /**
     * The schema without a user schema: the primary key, then the {@value OutputSchema#VALUES} map.
     */
    public static StructType inferred(List<PrimaryKeyColumn> primaryKey) {
        StructType schema = new StructType();
        for (PrimaryKeyColumn pk : primaryKey) {
            schema = schema.add(pk.name(), OutputSchema.primaryKeyType(pk.type()), false);
        }
        return schema.add(OutputSchema.VALUES, OutputSchema.STRING_MAP, false);
    }

    /**
     * The schema inferred from sampled rows: the primary key, then each attribute column the sample
     * holds, by name, typed as its values are (see {@link SampledColumns}).
     */
    public static StructType sampled(List<PrimaryKeyColumn> primaryKey, SampledColumns sample) {
        StructType schema = new StructType();
        for (PrimaryKeyColumn pk : primaryKey) {
            schema = schema.add(pk.name(), OutputSchema.primaryKeyType(pk.type()), false);
        }
        for (Map.Entry<String, CellValue.Type> column : sample.types().entrySet()) {
            schema = schema.add(column.getKey(), attributeType(column.getValue()), true);
        }
        return schema;
    }

    private static DataType attributeType(CellValue.Type type) {
        return switch (type) {
            case STRING -> DataTypes.StringType;
            case INTEGER -> DataTypes.LongType;
            case DOUBLE -> DataTypes.DoubleType;
            case BOOLEAN -> DataTypes.BooleanType;
            case BINARY -> DataTypes.BinaryType;
        };
    }

    /**
     * Checks a schema (a user's, or the inferred one) against the table's primary key.
     *
     * @throws IllegalArgumentException naming each column that cannot be read and the fix
     */
    public static void check(List<PrimaryKeyColumn> primaryKey, StructType given, String table) {
        Map<String, DataType> keys = new LinkedHashMap<>();
        primaryKey.forEach(pk -> keys.put(pk.name(), OutputSchema.primaryKeyType(pk.type())));
        List<String> problems = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        boolean values = false;
        boolean attributes = false;
        for (StructField field : given.fields()) {
            String name = field.name();
            if (!seen.add(name)) {
                problems.add("column '" + name + "' is declared twice: remove one");
            } else if (keys.containsKey(name)) {
                mustBe(field, keys.get(name), "a primary-key column of the table", problems);
            } else if (name.equals(OutputSchema.VALUES)) {
                values = true;
                mustBe(field, OutputSchema.STRING_MAP, "the map of attribute values", problems);
            } else if (OutputSchema.ATTRIBUTE_TYPES.contains(field.dataType())) {
                attributes = true;
            } else {
                problems.add(unsupported(field));
            }
        }
        for (PrimaryKeyColumn pk : primaryKey) {
            if (!seen.contains(pk.name())) {
                problems.add(missingKey(pk));
            }
        }
        if (values && attributes) {
            problems.add(
                    "the schema declares attribute columns and the "
                            + OutputSchema.VALUES
                            + " map: declare either attribute columns or "
                            + OutputSchema.VALUES
                            + ", not both");
        }
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(
                    "The schema of spark.read.format(\"tablestore\") does not fit table '"
                            + table
                            + "' (primary key "
                            + describe(primaryKey)
                            + "): "
                            + String.join("; ", problems)
                            + ". See docs/tablestore-table.md, \"Batch read (Spark)\".");
        }
    }

    private static void mustBe(
            StructField field, DataType wanted, String what, List<String> problems) {
        if (!field.dataType().simpleString().equals(wanted.simpleString())) {
            problems.add(
                    "column '"
                            + field.name()
                            + "' is "
                            + field.dataType().simpleString()
                            + ", but it is "
                            + what
                            + " and reads as "
                            + wanted.simpleString()
                            + ": declare it as "
                            + wanted.simpleString());
        }
    }

    private static String missingKey(PrimaryKeyColumn pk) {
        String type = OutputSchema.primaryKeyType(pk.type()).simpleString();
        return "the primary-key column '"
                + pk.name()
                + "' is missing: add it to the schema as "
                + pk.name()
                + " "
                + type.toUpperCase(java.util.Locale.ROOT)
                + " (select fewer columns with .select(...) instead of leaving key columns out)";
    }

    private static String unsupported(StructField field) {
        List<String> names = new ArrayList<>();
        OutputSchema.ATTRIBUTE_TYPES.forEach(t -> names.add(t.simpleString()));
        return "column '"
                + field.name()
                + "' has type "
                + field.dataType().simpleString()
                + ", which no Tablestore value converts to: use one of "
                + names;
    }

    private static String describe(List<PrimaryKeyColumn> primaryKey) {
        List<String> parts = new ArrayList<>();
        primaryKey.forEach(pk -> parts.add(pk.name() + " " + pk.type()));
        return "(" + String.join(", ", parts) + ")";
    }
}
