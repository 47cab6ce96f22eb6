package io.tablestorecdc.pipeline;

import java.util.Map;
import org.apache.flink.cdc.common.source.SupportedMetadataColumn;
import org.apache.flink.cdc.common.types.DataType;
import org.apache.flink.cdc.common.types.DataTypes;

/**
 * Metadata column {@code op_ts}: the change's commit time in milliseconds since the epoch (0 for
 * base data), as Flink CDC's sources name it.
 */
final class OpTsMetadataColumn implements SupportedMetadataColumn {

    private static final long serialVersionUID = 1L;

    @Override
    public String getName() {
        return EventDeserializer.OP_TS;
    }

    @Override
    public DataType getType() {
        return DataTypes.BIGINT().notNull();
    }

    @Override
    public Class<?> getJavaClass() {
        return Long.class;
    }

    @Override
    public Object read(Map<String, String> metadata) {
        String millis = metadata.get(EventDeserializer.OP_TS);
        return millis == null ? 0L : Long.parseLong(millis);
    }
}
