package io.tablestorecdc.flink.source;

import io.tablestorecdc.checkpoint.tunnel.TunnelProxy;
import io.tablestorecdc.flink.source.config.TablestoreCdcSourceConfig;
import java.io.Serializable;
import org.apache.flink.annotation.Internal;

/**
 * Builds the tunnel client wherever the source runs (JobManager and TaskManagers): the source ships
 * only this factory and its settings, never an SDK client.
 */
@Internal
@FunctionalInterface
public interface TunnelProxyFactory extends Serializable {

    TunnelProxy create(TablestoreCdcSourceConfig config);
}
