package io.tablestorecdc.flink.table.tablestore;

import com.alicloud.openservices.tablestore.model.PrimaryKeySchema;
import com.alicloud.openservices.tablestore.model.PrimaryKeyType;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import io.tablestorecdc.checkpoint.table.KeyComparison;
import io.tablestorecdc.checkpoint.table.KeyComparison.Op;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apache.flink.annotation.Internal;
import org.apache.flink.table.expressions.CallExpression;
import org.apache.flink.table.expressions.FieldReferenceExpression;
import org.apache.flink.table.expressions.ResolvedExpression;
import org.apache.flink.table.expressions.ValueLiteralExpression;
import org.apache.flink.table.functions.BuiltInFunctionDefinitions;
import org.apache.flink.table.functions.FunctionDefinition;
import org.apache.flink.table.types.logical.LogicalTypeRoot;

/**
 * Reads the primary-key comparisons out of a filter Flink pushes down: {@code =}, {@code <}, {@code
 * <=}, {@code >}, {@code >=} between a primary-key column and a literal (either side), and ANDs of
 * them ({@code BETWEEN} arrives as two comparisons). Anything else gives no comparisons. The key
 * bounds come from {@link io.tablestorecdc.checkpoint.table.KeyBounds#derive}.
 */
@Internal
final class PrimaryKeyFilters {

    private static final Map<FunctionDefinition, Op> OPS =
            Map.of(
                    BuiltInFunctionDefinitions.EQUALS, Op.EQUAL,
                    BuiltInFunctionDefinitions.LESS_THAN, Op.LESS,
                    BuiltInFunctionDefinitions.LESS_THAN_OR_EQUAL, Op.LESS_OR_EQUAL,
                    BuiltInFunctionDefinitions.GREATER_THAN, Op.GREATER,
                    BuiltInFunctionDefinitions.GREATER_THAN_OR_EQUAL, Op.GREATER_OR_EQUAL);

    private final Map<String, PrimaryKeyType> keyTypes;

    PrimaryKeyFilters(List<PrimaryKeySchema> primaryKey) {
        this.keyTypes =
                primaryKey.stream()
                        .collect(
                                Collectors.toMap(
                                        PrimaryKeySchema::getName, PrimaryKeySchema::getType));
    }

    /** The primary-key comparisons {@code filter} implies; empty when it implies none. */
    List<KeyComparison> comparisons(ResolvedExpression filter) {
        if (!(filter instanceof CallExpression call)) {
            return List.of();
        }
        List<ResolvedExpression> args = call.getResolvedChildren();
        if (call.getFunctionDefinition() == BuiltInFunctionDefinitions.AND) {
            List<KeyComparison> all = new ArrayList<>();
            args.forEach(arg -> all.addAll(comparisons(arg)));
            return all;
        }
        Op op = OPS.get(call.getFunctionDefinition());
        if (op == null || args.size() != 2) {
            return List.of();
        }
        if (args.get(0) instanceof FieldReferenceExpression field
                && args.get(1) instanceof ValueLiteralExpression literal) {
            return comparison(field, op, literal).map(List::of).orElse(List.of());
        }
        if (args.get(1) instanceof FieldReferenceExpression field
                && args.get(0) instanceof ValueLiteralExpression literal) {
            return comparison(field, op.flipped(), literal).map(List::of).orElse(List.of());
        }
        return List.of();
    }

    private Optional<KeyComparison> comparison(
            FieldReferenceExpression field, Op op, ValueLiteralExpression literal) {
        PrimaryKeyType keyType = keyTypes.get(field.getName());
        if (keyType == null) {
            return Optional.empty();
        }
        LogicalTypeRoot root = field.getOutputDataType().getLogicalType().getTypeRoot();
        Optional<Object> raw = literal.getValueAs(Object.class);
        if (raw.isEmpty()) {
            return Optional.empty(); // NULL: the comparison is never true; leave it to Flink
        }
        return value(keyType, root, raw.get()).map(v -> new KeyComparison(field.getName(), op, v));
    }

    /**
     * The key value of a literal compared with a column of Flink type {@code root}; empty where
     * Flink's comparison could order values otherwise than the service (CHAR's padding, BINARY's
     * fixed length) or the literal is no exact value of the key's type.
     */
    private static Optional<PrimaryKeyValue> value(
            PrimaryKeyType keyType, LogicalTypeRoot root, Object literal) {
        switch (keyType) {
            case STRING:
                return root == LogicalTypeRoot.VARCHAR && literal instanceof String s
                        ? Optional.of(PrimaryKeyValue.fromString(s))
                        : Optional.empty();
            case INTEGER:
                return isInteger(root)
                        ? exactLong(literal).map(PrimaryKeyValue::fromLong)
                        : Optional.empty();
            case BINARY:
                return root == LogicalTypeRoot.VARBINARY && literal instanceof byte[] b
                        ? Optional.of(PrimaryKeyValue.fromBinary(b))
                        : Optional.empty();
            default:
                return Optional.empty();
        }
    }

    private static boolean isInteger(LogicalTypeRoot root) {
        return root == LogicalTypeRoot.BIGINT
                || root == LogicalTypeRoot.INTEGER
                || root == LogicalTypeRoot.SMALLINT
                || root == LogicalTypeRoot.TINYINT;
    }

    private static Optional<Long> exactLong(Object literal) {
        if (literal instanceof Long
                || literal instanceof Integer
                || literal instanceof Short
                || literal instanceof Byte) {
            return Optional.of(((Number) literal).longValue());
        }
        if (literal instanceof BigDecimal d) {
            try {
                return Optional.of(d.longValueExact());
            } catch (ArithmeticException e) {
                return Optional.empty();
            }
        }
        return Optional.empty();
    }
}
