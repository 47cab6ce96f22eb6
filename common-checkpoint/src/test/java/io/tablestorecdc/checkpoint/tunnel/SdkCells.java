package io.tablestorecdc.checkpoint.tunnel;

import com.alicloud.openservices.tablestore.model.ColumnValue;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import io.tablestorecdc.checkpoint.model.Cell;
import io.tablestorecdc.checkpoint.model.CellValue;
import io.tablestorecdc.checkpoint.tunnel.TunnelException.Kind;

/**
 * Views of the SDK's values as {@link Cell}s, reused from one cell to the next, so that a visitor
 * reads values without a {@link CellValue} per cell. {@code of} checks what the server sent.
 */
final class SdkCells {

    private SdkCells() {}

    /** A primary-key value: string, integer or binary; never a range marker. */
    static final class KeyCell implements Cell {
        private final String channelId;
        private PrimaryKeyValue value;
        private CellValue.Type type;

        KeyCell(String channelId) {
            this.channelId = channelId;
        }

        KeyCell of(String name, PrimaryKeyValue v) {
            if (v.isInfMin() || v.isInfMax() || v.isPlaceHolderForAutoIncr()) {
                throw PlainBufferRecordPage.malformed(
                        channelId, "primary-key column " + name + " holds a range marker");
            }
            switch (v.getType()) {
                case STRING:
                    type = CellValue.Type.STRING;
                    break;
                case INTEGER:
                    type = CellValue.Type.INTEGER;
                    break;
                case BINARY:
                    type = CellValue.Type.BINARY;
                    break;
                default:
                    throw PlainBufferRecordPage.malformed(
                            channelId, "primary-key column " + name + " has type " + v.getType());
            }
            value = v;
            return this;
        }

        @Override
        public CellValue.Type type() {
            return type;
        }

        @Override
        public long asInteger() {
            return value.asLong();
        }

        @Override
        public double asDouble() {
            throw notA(CellValue.Type.DOUBLE);
        }

        @Override
        public boolean asBoolean() {
            throw notA(CellValue.Type.BOOLEAN);
        }

        @Override
        public String asString() {
            return value.asString();
        }

        @Override
        public byte[] utf8() {
            return value.asStringInBytes();
        }

        @Override
        public byte[] binaryView() {
            return value.asBinary();
        }

        @Override
        public CellValue toCellValue() {
            return CellValue.copyOf(this);
        }

        private IllegalStateException notA(CellValue.Type wanted) {
            return new IllegalStateException("Cell value is " + type + ", not " + wanted);
        }
    }

    /** An attribute value of a PUT: string, integer, double, boolean or binary. */
    static final class ColumnCell implements Cell {
        private final String channelId;
        private ColumnValue value;
        private CellValue.Type type;

        ColumnCell(String channelId) {
            this.channelId = channelId;
        }

        ColumnCell of(String name, ColumnValue v) {
            if (v == null || v.getValue() == null) {
                throw PlainBufferRecordPage.malformed(
                        channelId, "a PUT of column " + name + " without a value");
            }
            type = typeOf(name, v);
            value = v;
            return this;
        }

        private CellValue.Type typeOf(String name, ColumnValue v) {
            switch (v.getType()) {
                case STRING:
                    return CellValue.Type.STRING;
                case INTEGER:
                    return CellValue.Type.INTEGER;
                case DOUBLE:
                    return CellValue.Type.DOUBLE;
                case BOOLEAN:
                    return CellValue.Type.BOOLEAN;
                case BINARY:
                    return CellValue.Type.BINARY;
                default:
                    throw new TunnelException(
                            Kind.MALFORMED_RESPONSE,
                            "Column "
                                    + name
                                    + " in channel "
                                    + channelId
                                    + " has type "
                                    + v.getType()
                                    + ", which tablestore-cdc does not read yet (it reads string,"
                                    + " integer, double, boolean and binary columns). Store the"
                                    + " column in one of those types, or report the need.");
            }
        }

        @Override
        public CellValue.Type type() {
            return type;
        }

        @Override
        public long asInteger() {
            return value.asLong();
        }

        @Override
        public double asDouble() {
            return value.asDouble();
        }

        @Override
        public boolean asBoolean() {
            return value.asBoolean();
        }

        @Override
        public String asString() {
            return value.asString();
        }

        @Override
        public byte[] utf8() {
            return value.asStringInBytes();
        }

        @Override
        public byte[] binaryView() {
            return value.asBinary();
        }

        @Override
        public CellValue toCellValue() {
            return CellValue.copyOf(this);
        }
    }
}
