package io.tablestorecdc.emulator.table;

import com.alicloud.openservices.tablestore.core.protocol.OtsFilter;
import com.alicloud.openservices.tablestore.model.Column;
import com.alicloud.openservices.tablestore.model.ColumnType;
import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.aliyun.ots.thirdparty.com.google.protobuf.ByteString;
import com.aliyun.ots.thirdparty.com.google.protobuf.InvalidProtocolBufferException;
import io.tablestorecdc.emulator.server.EmulatorError;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A column condition or filter (SingleColumnValueFilter, CompositeColumnValueFilter) decoded from
 * its wire form and evaluated against a row's columns: a single-column comparison against the
 * column's newest version ({@code latest_version_only}, the SDK's default), or against each of its
 * versions, passing when one matches.
 */
public abstract sealed class RowFilter permits RowFilter.Single, RowFilter.Composite {

    /** Whether the row (empty = absent) passes. */
    abstract boolean test(Optional<StoredRow> row);

    /** Decodes a serialized {@code OtsFilter.Filter}. */
    public static RowFilter parse(ByteString bytes) throws EmulatorError {
        try {
            return fromFilter(OtsFilter.Filter.parseFrom(bytes), new int[1]);
        } catch (InvalidProtocolBufferException e) {
            throw EmulatorError.parameterInvalid(
                    "The column condition / filter is not a valid Filter");
        }
    }

    /**
     * Decodes one condition of the tree; {@code count} counts the conditions read so far, composite
     * and single, which the service refuses beyond {@link Limits#MAX_FILTERS} before it looks at
     * the tree's shape.
     */
    private static RowFilter fromFilter(OtsFilter.Filter filter, int[] count)
            throws EmulatorError, InvalidProtocolBufferException {
        Limits.filterCount(++count[0]);
        switch (filter.getType()) {
            case FT_SINGLE_COLUMN_VALUE:
                return Single.from(OtsFilter.SingleColumnValueFilter.parseFrom(filter.getFilter()));
            case FT_COMPOSITE_COLUMN_VALUE:
                return Composite.from(
                        OtsFilter.CompositeColumnValueFilter.parseFrom(filter.getFilter()), count);
            default:
                throw EmulatorError.parameterInvalid(
                        "The emulator supports single and composite column value filters only, not "
                                + filter.getType());
        }
    }

    /** One column compared with a value. */
    static final class Single extends RowFilter {
        private final OtsFilter.ComparatorType comparator;
        private final String column;
        private final ColumnValue value;
        private final boolean filterIfMissing;
        private final boolean latestVersionOnly;

        private Single(
                OtsFilter.ComparatorType comparator,
                String column,
                ColumnValue value,
                boolean filterIfMissing,
                boolean latestVersionOnly) {
            this.comparator = comparator;
            this.column = column;
            this.value = value;
            this.filterIfMissing = filterIfMissing;
            this.latestVersionOnly = latestVersionOnly;
        }

        static Single from(OtsFilter.SingleColumnValueFilter pb) throws EmulatorError {
            if (pb.hasValueTransRule()) {
                throw EmulatorError.parameterInvalid(
                        "The emulator does not support regex value-transfer rules in filters");
            }
            Limits.attributeName(pb.getColumnName());
            ColumnValue value = decodeValue(pb.getColumnValue());
            Limits.value(pb.getColumnName(), value);
            return new Single(
                    pb.getComparator(),
                    pb.getColumnName(),
                    value,
                    pb.getFilterIfMissing(),
                    pb.getLatestVersionOnly());
        }

        @Override
        boolean test(Optional<StoredRow> row) {
            List<Column> versions = row.map(r -> r.versions(column)).orElse(List.of());
            switch (comparator) {
                case CT_EXIST:
                    return !versions.isEmpty();
                case CT_NOT_EXIST:
                    return versions.isEmpty();
                default:
                    if (versions.isEmpty()) {
                        return !filterIfMissing;
                    }
                    return latestVersionOnly
                            ? matches(versions.get(0).getValue())
                            : versions.stream().anyMatch(v -> matches(v.getValue()));
            }
        }

        private boolean matches(ColumnValue actual) {
            if (actual.getType() != value.getType()) {
                // Values of different types are never equal and never ordered.
                return comparator == OtsFilter.ComparatorType.CT_NOT_EQUAL;
            }
            int c = compare(actual, value);
            switch (comparator) {
                case CT_EQUAL:
                    return c == 0;
                case CT_NOT_EQUAL:
                    return c != 0;
                case CT_GREATER_THAN:
                    return c > 0;
                case CT_GREATER_EQUAL:
                    return c >= 0;
                case CT_LESS_THAN:
                    return c < 0;
                case CT_LESS_EQUAL:
                    return c <= 0;
                default:
                    return false;
            }
        }
    }

    /** NOT / AND / OR over sub-filters. */
    static final class Composite extends RowFilter {
        private final OtsFilter.LogicalOperator operator;
        private final List<RowFilter> parts;

        private Composite(OtsFilter.LogicalOperator operator, List<RowFilter> parts) {
            this.operator = operator;
            this.parts = parts;
        }

        static Composite from(OtsFilter.CompositeColumnValueFilter pb, int[] count)
                throws EmulatorError, InvalidProtocolBufferException {
            List<RowFilter> parts = new ArrayList<>();
            for (OtsFilter.Filter sub : pb.getSubFiltersList()) {
                parts.add(fromFilter(sub, count));
            }
            // The service's words (its error code reference and SDK filter tests).
            if (pb.getCombinator() == OtsFilter.LogicalOperator.LO_NOT) {
                if (parts.size() != 1) {
                    throw EmulatorError.parameterInvalid(
                            "Invalid NOT operator: the number of sub-filters must be 1.");
                }
            } else if (parts.size() < 2) {
                throw EmulatorError.parameterInvalid(
                        "Invalid AND/OR operator: the number of sub-filters must be more than 1.");
            }
            return new Composite(pb.getCombinator(), List.copyOf(parts));
        }

        @Override
        boolean test(Optional<StoredRow> row) {
            switch (operator) {
                case LO_NOT:
                    return !parts.get(0).test(row);
                case LO_AND:
                    return parts.stream().allMatch(p -> p.test(row));
                default:
                    return parts.stream().anyMatch(p -> p.test(row));
            }
        }
    }

    /**
     * Decodes a type byte followed by the value, as {@code buildColumnValueWithoutLengthPrefix}.
     */
    static ColumnValue decodeValue(ByteString bytes) throws EmulatorError {
        ByteBuffer buf = bytes.asReadOnlyByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
        try {
            byte type = buf.get();
            switch (type) {
                case 0x0:
                    return ColumnValue.fromLong(buf.getLong());
                case 0x1:
                    return ColumnValue.fromDouble(buf.getDouble());
                case 0x2:
                    return ColumnValue.fromBoolean(buf.get() != 0);
                case 0x3:
                    return ColumnValue.fromString(
                            new String(lengthPrefixed(buf), StandardCharsets.UTF_8));
                case 0x7:
                    return ColumnValue.fromBinary(lengthPrefixed(buf));
                default:
                    throw EmulatorError.parameterInvalid("Unknown column value type " + type);
            }
        } catch (java.nio.BufferUnderflowException e) {
            throw EmulatorError.parameterInvalid("A filter's column value is truncated");
        }
    }

    private static byte[] lengthPrefixed(ByteBuffer buf) {
        byte[] out = new byte[buf.getInt()];
        buf.get(out);
        return out;
    }

    /** Orders two values of one type: numbers numerically, strings and binaries bytewise. */
    static int compare(ColumnValue a, ColumnValue b) {
        ColumnType type = a.getType();
        switch (type) {
            case INTEGER:
                return Long.compare(a.asLong(), b.asLong());
            case DOUBLE:
                return Double.compare(a.asDouble(), b.asDouble());
            case BOOLEAN:
                return Boolean.compare(a.asBoolean(), b.asBoolean());
            case STRING:
                return PrimaryKeyOrder.compareBytes(a.asStringInBytes(), b.asStringInBytes());
            case BINARY:
                return PrimaryKeyOrder.compareBytes(a.asBinary(), b.asBinary());
            default:
                throw new IllegalArgumentException("Cannot compare values of type " + type);
        }
    }
}
