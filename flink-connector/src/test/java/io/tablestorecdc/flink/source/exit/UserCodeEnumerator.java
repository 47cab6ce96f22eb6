package io.tablestorecdc.flink.source.exit;

import io.tablestorecdc.flink.source.TablestoreCdcSource;
import io.tablestorecdc.flink.source.testing.RecordStrings;
import java.time.Duration;
import java.util.Map;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;

/**
 * Builds a source's enumerator inside a user-code classloader: {@link ClosedClassLoaderCloseITCase}
 * loads this class through one, so that the source, the core and the Tablestore SDK all come from
 * that loader, as on a cluster.
 */
public final class UserCodeEnumerator {

    private UserCodeEnumerator() {}

    /** A started enumerator of the source {@code settings} describe (endpoint, table, ...). */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public static SplitEnumerator<?, ?> start(
            Map<String, String> settings, SplitEnumeratorContext context) throws Exception {
        TablestoreCdcSource<String> source =
                TablestoreCdcSource.<String>builder()
                        .setEndpoint(settings.get("endpoint"))
                        .setInstanceName(settings.get("instance"))
                        .setCredentials(settings.get("accessKeyId"), settings.get("secret"))
                        .setTableName(settings.get("table"))
                        .setTunnelName(settings.get("tunnel"))
                        .setMetaTable(settings.get("metaTable"))
                        .setDiscoveryInterval(Duration.ofMillis(200))
                        .setDeserializer(new RecordStrings())
                        .build();
        SplitEnumerator enumerator = source.createEnumerator(context);
        enumerator.start();
        return enumerator;
    }
}
