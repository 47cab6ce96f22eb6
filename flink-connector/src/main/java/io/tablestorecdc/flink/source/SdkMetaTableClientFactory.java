package io.tablestorecdc.flink.source;

import io.tablestorecdc.checkpoint.meta.MetaTableClient;
import io.tablestorecdc.checkpoint.meta.SdkMetaTableClient;
import io.tablestorecdc.flink.source.config.TablestoreCdcSourceConfig;
import org.apache.flink.annotation.Internal;

/**
 * The production {@link MetaTableClientFactory}: the configured meta table, or {@link
 * SdkMetaTableClient#DEFAULT_TABLE_NAME} when none is set (ownership, invariant 8, needs one).
 */
@Internal
public enum SdkMetaTableClientFactory implements MetaTableClientFactory {
    INSTANCE;

    @Override
    public MetaTableClient create(TablestoreCdcSourceConfig config) {
        return SdkMetaTableClient.connect(config.tablestoreEndpoint(), config.metaTable());
    }
}
