package io.tablestorecdc.flink.source;

import io.tablestorecdc.checkpoint.tunnel.SdkTunnelProxy;
import io.tablestorecdc.checkpoint.tunnel.TunnelProxy;
import io.tablestorecdc.flink.source.config.TablestoreCdcSourceConfig;
import org.apache.flink.annotation.Internal;

/** The production {@link TunnelProxyFactory}: the SDK's tunnel client. */
@Internal
public enum SdkTunnelProxyFactory implements TunnelProxyFactory {
    INSTANCE;

    @Override
    public TunnelProxy create(TablestoreCdcSourceConfig config) {
        return SdkTunnelProxy.create(config.tablestoreEndpoint());
    }
}
