package io.tablestorecdc.e2e;

import com.alicloud.openservices.tablestore.ClientConfiguration;
import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.TunnelClient;
import io.tablestorecdc.checkpoint.model.TablestoreCredentials;
import io.tablestorecdc.checkpoint.model.TablestoreEndpoint;
import java.io.Serializable;

/**
 * The Tablestore instance the demo runs against: the embedded emulator or one named on the command
 * line.
 *
 * @param endpoint {@code http(s)://host[:port]}
 * @param instanceName the instance
 * @param accessKeyId the access key id
 * @param accessKeySecret the secret; never printed (Serializable so a Flink sink can carry it)
 */
public record DemoTarget(
        String endpoint, String instanceName, String accessKeyId, String accessKeySecret)
        implements Serializable {

    /** A client whose row writes are retried after a client-side failure (see DemoWriteRetry). */
    public SyncClient syncClient() {
        ClientConfiguration configuration = new ClientConfiguration();
        configuration.setRetryStrategy(new DemoWriteRetry());
        return new SyncClient(endpoint, accessKeyId, accessKeySecret, instanceName, configuration);
    }

    /** The instance as the core's SDK adapters take it. */
    public TablestoreEndpoint tablestoreEndpoint() {
        return new TablestoreEndpoint(
                endpoint, instanceName, TablestoreCredentials.of(accessKeyId, accessKeySecret));
    }

    public TunnelClient tunnelClient() {
        return new TunnelClient(endpoint, accessKeyId, accessKeySecret, instanceName);
    }

    @Override
    public String toString() {
        return endpoint + " instance " + instanceName;
    }
}
