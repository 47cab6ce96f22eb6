package io.tablestorecdc.spark;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.model.CellValue;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The rows this source produces: primary-key columns (from DescribeTable; for tables of different
 * keys in the {@value #VALUES} layout, every table's, by name: see {@link SourceKey}), then either
 * the attribute columns the user's schema declares or one {@value #VALUES} map of every attribute
 * value as a string, then the metadata columns.
 *
 * <p>A user schema lists the attribute columns wanted, with types; it may also repeat primary-key
 * and metadata columns (for example a schema copied from a previous run), which must then have
 * their fixed types.
 */
@Internal
public final class OutputSchema implements Serializable {

    private static final long serialVersionUID = 1L;

    /** The table the change was read from: the first metadata column, in every row. */
    public static final String TABLE = "_table";

    /** {@code PUT}, {@code UPDATE} or {@code DELETE}. */
    public static final String OP = "_op";

    /** The change's commit time; null for base-data records (snapshot rows have none). */
    public static final String COMMIT_TS = "_commit_ts";

    /** The tunnel channel the change was read from. */
    public static final String CHANNEL = "_channel";

    /** Orders the changes of one key: struct of epoch, commit timestamp (µs) and row index. */
    public static final String SEQ = "_seq";

    /**
     * Attribute column to PUT / DELETE_ONE_VERSION / DELETE_ALL_VERSION, for the columns touched.
     */
    public static final String COLUMN_OPS = "_column_ops";

    /** Without a user schema: every attribute value the change carries, as a string. */
    public static final String VALUES = "_values";

    /**
     * The before-image: the values the row held before the change in the table's stream origin
     * columns, as strings; null for a change without one. Present when the stream names origin
     * columns (or the user's schema declares it).
     */
    public static final String BEFORE = "_before";

    static final StructType SEQ_TYPE =
            new StructType()
                    .add("epoch", DataTypes.IntegerType, false)
                    .add("timestamp", DataTypes.LongType, false)
                    .add("row_index", DataTypes.IntegerType, false);

    public static final DataType STRING_MAP =
            DataTypes.createMapType(DataTypes.StringType, DataTypes.StringType, false);

    public static final List<DataType> ATTRIBUTE_TYPES = SparkTypes.READABLE;

    private final List<PrimaryKeyColumn> primaryKey;
    private final Set<String> optionalKey;
    private final List<StructField> attributes;
    private final boolean valuesMap;
    private final boolean before;
    private final StructType sparkSchema;

    private OutputSchema(
            SourceKey key, List<StructField> attributes, boolean valuesMap, boolean before) {
        this.primaryKey = key.columns();
        this.optionalKey = key.optional();
        this.attributes = List.copyOf(attributes);
        this.valuesMap = valuesMap;
        this.before = before;
        this.sparkSchema = build();
    }

    /** The schema without a user schema: primary key, the {@value #VALUES} map, metadata. */
    public static OutputSchema inferred(List<PrimaryKeyColumn> primaryKey) {
        return inferred(primaryKey, false);
    }

    /** As {@link #inferred(List)}, with the {@value #BEFORE} column when {@code before}. */
    public static OutputSchema inferred(List<PrimaryKeyColumn> primaryKey, boolean before) {
        return inferred(SourceKey.of(primaryKey), before);
    }

    /**
     * As {@link #inferred(List, boolean)}, for the rows of tables of different keys: a key column
     * some table lacks is nullable.
     */
    static OutputSchema inferred(SourceKey key, boolean before) {
        return new OutputSchema(key, List.of(), true, before);
    }

    /**
     * The schema for a given Spark schema: the user's attribute columns (or, when it holds a
     * {@value #VALUES} column and no attribute columns, the inferred layout).
     *
     * @throws IllegalArgumentException naming each column that cannot be produced and the fix
     */
    public static OutputSchema of(List<PrimaryKeyColumn> primaryKey, StructType given) {
        return of(SourceKey.of(primaryKey), given);
    }

    /**
     * As {@link #of(List, StructType)}, for the rows of tables whose keys may differ: then only in
     * the {@value #VALUES} layout.
     *
     * @throws IllegalArgumentException naming each column that cannot be produced and the fix
     */
    static OutputSchema of(SourceKey key, StructType given) {
        List<PrimaryKeyColumn> primaryKey = key.columns();
        Map<String, DataType> fixed = fixedColumns(primaryKey);
        List<StructField> attributes = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        boolean values = false;
        boolean before = false;
        Set<String> seen = new HashSet<>();
        for (StructField field : given.fields()) {
            if (!seen.add(field.name())) {
                problems.add("column '" + field.name() + "' is declared twice: remove one");
            } else if (fixed.containsKey(field.name())) {
                values |= field.name().equals(VALUES);
                before |= field.name().equals(BEFORE);
                checkFixed(field, fixed.get(field.name()), problems);
            } else if (ATTRIBUTE_TYPES.contains(field.dataType())) {
                attributes.add(
                        new StructField(field.name(), field.dataType(), true, field.metadata()));
            } else {
                problems.add(unsupported(field));
            }
        }
        if (values && !attributes.isEmpty()) {
            problems.add(
                    "the schema declares attribute columns and the "
                            + VALUES
                            + " map: declare either attribute columns or "
                            + VALUES
                            + ", not both");
        }
        if (!attributes.isEmpty() && !key.shared()) {
            problems.add(
                    "the tables' primary keys differ (not every table has "
                            + new java.util.TreeSet<>(key.optional())
                            + "), and declared attribute columns need one key: declare "
                            + VALUES
                            + " instead of attribute columns, or read such tables in separate"
                            + " queries");
        }
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(
                    "The schema given to readStream.schema(...) does not fit table columns: "
                            + String.join("; ", problems));
        }
        return new OutputSchema(key, attributes, attributes.isEmpty(), before);
    }

    /**
     * Whether {@code given} declares an attribute column: a column that is none of the tables' key
     * columns ({@code keys}) and none of the metadata columns (nor {@value #VALUES}).
     */
    static boolean declaresAttributes(
            java.util.Collection<List<PrimaryKeyColumn>> keys, StructType given) {
        Set<String> fixed = new HashSet<>(fixedColumns(List.of()).keySet());
        keys.forEach(key -> key.forEach(column -> fixed.add(column.name())));
        for (StructField field : given.fields()) {
            if (!fixed.contains(field.name())) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether rows of a table of key {@code key} fit these key columns ({@link SourceKey#fits}).
     */
    boolean keyFits(List<PrimaryKeyColumn> key) {
        return new SourceKey(primaryKey, optionalKey).fits(key);
    }

    private static Map<String, DataType> fixedColumns(List<PrimaryKeyColumn> primaryKey) {
        Map<String, DataType> fixed = new LinkedHashMap<>();
        primaryKey.forEach(pk -> fixed.put(pk.name(), primaryKeyType(pk.type())));
        fixed.put(VALUES, STRING_MAP);
        fixed.put(TABLE, DataTypes.StringType);
        fixed.put(OP, DataTypes.StringType);
        fixed.put(COMMIT_TS, DataTypes.TimestampType);
        fixed.put(CHANNEL, DataTypes.StringType);
        fixed.put(SEQ, SEQ_TYPE);
        fixed.put(COLUMN_OPS, STRING_MAP);
        fixed.put(BEFORE, STRING_MAP);
        return fixed;
    }

    private static void checkFixed(StructField field, DataType wanted, List<String> problems) {
        if (!sameShape(field.dataType(), wanted)) {
            problems.add(
                    "column '"
                            + field.name()
                            + "' is "
                            + field.dataType().simpleString()
                            + " but this source always produces it as "
                            + wanted.simpleString()
                            + ": declare it as "
                            + wanted.simpleString()
                            + " or leave it out");
        }
    }

    // Nullability of nested types is not the user's to choose; compare the shape only.
    private static boolean sameShape(DataType a, DataType b) {
        return a.simpleString().equals(b.simpleString());
    }

    private static String unsupported(StructField field) {
        List<String> names = new ArrayList<>();
        ATTRIBUTE_TYPES.forEach(t -> names.add(t.simpleString()));
        return "column '"
                + field.name()
                + "' has type "
                + field.dataType().simpleString()
                + ", which no Tablestore value converts to: use one of "
                + names;
    }

    public static DataType primaryKeyType(CellValue.Type type) {
        return switch (type) {
            case STRING -> DataTypes.StringType;
            case INTEGER -> DataTypes.LongType;
            case BINARY -> DataTypes.BinaryType;
            default ->
                    throw new IllegalArgumentException(
                            "A primary-key column cannot be of type " + type);
        };
    }

    private StructType build() {
        StructType schema = new StructType();
        for (PrimaryKeyColumn pk : primaryKey) {
            schema =
                    schema.add(
                            pk.name(), primaryKeyType(pk.type()), optionalKey.contains(pk.name()));
        }
        if (valuesMap) {
            schema = schema.add(VALUES, STRING_MAP, false);
        }
        for (StructField attribute : attributes) {
            schema = schema.add(attribute);
        }
        schema =
                schema.add(TABLE, DataTypes.StringType, false)
                        .add(OP, DataTypes.StringType, false)
                        .add(COMMIT_TS, DataTypes.TimestampType, true)
                        .add(CHANNEL, DataTypes.StringType, false)
                        .add(SEQ, SEQ_TYPE, false)
                        .add(COLUMN_OPS, STRING_MAP, false);
        return before ? schema.add(BEFORE, STRING_MAP, true) : schema;
    }

    /** Whether rows carry the {@value #BEFORE} column (after the other metadata columns). */
    public boolean before() {
        return before;
    }

    public StructType sparkSchema() {
        return sparkSchema;
    }

    public List<PrimaryKeyColumn> primaryKey() {
        return primaryKey;
    }

    /** Whether some table lacks key column {@code name}: its rows have null there. */
    boolean optionalKey(String name) {
        return optionalKey.contains(name);
    }

    /** The declared attribute columns; empty in the {@value #VALUES}-map layout. */
    public List<StructField> attributes() {
        return attributes;
    }

    public boolean valuesMap() {
        return valuesMap;
    }

    /** The attribute column of this name, if the user declared it. */
    Optional<Integer> attributeIndex(String name) {
        for (int i = 0; i < attributes.size(); i++) {
            if (attributes.get(i).name().equals(name)) {
                return Optional.of(i);
            }
        }
        return Optional.empty();
    }

    @Override
    public String toString() {
        return "OutputSchema" + sparkSchema.simpleString();
    }
}
