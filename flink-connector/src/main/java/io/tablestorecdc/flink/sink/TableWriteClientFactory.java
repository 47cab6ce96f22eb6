package io.tablestorecdc.flink.sink;

import io.tablestorecdc.checkpoint.settings.TableConnection;
import io.tablestorecdc.checkpoint.write.SdkTableWriteClient;
import io.tablestorecdc.checkpoint.write.TableWriteClient;
import java.io.Serializable;
import org.apache.flink.annotation.Internal;

/** Opens the client a sink writer sends its requests with; where a task builds it. */
@Internal
@FunctionalInterface
public interface TableWriteClientFactory extends Serializable {

    TableWriteClient open(TableConnection connection);

    /** The SDK client of the connection's instance and credentials. */
    static TableWriteClientFactory sdk() {
        return connection -> SdkTableWriteClient.connect(connection.tablestoreEndpoint());
    }
}
