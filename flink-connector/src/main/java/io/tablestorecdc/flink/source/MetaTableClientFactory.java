package io.tablestorecdc.flink.source;

import io.tablestorecdc.checkpoint.meta.MetaTableClient;
import io.tablestorecdc.flink.source.config.TablestoreCdcSourceConfig;
import java.io.Serializable;
import org.apache.flink.annotation.Internal;

/**
 * Builds the meta table client on the JobManager: the source ships only this factory and its
 * settings, never an SDK client.
 */
@Internal
@FunctionalInterface
public interface MetaTableClientFactory extends Serializable {

    MetaTableClient create(TablestoreCdcSourceConfig config);
}
