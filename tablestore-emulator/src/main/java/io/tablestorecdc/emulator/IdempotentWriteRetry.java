package io.tablestorecdc.emulator;

import com.alicloud.openservices.tablestore.ClientConfiguration;
import com.alicloud.openservices.tablestore.ClientException;
import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.model.DefaultRetryStrategy;
import com.alicloud.openservices.tablestore.model.OperationNames;
import com.alicloud.openservices.tablestore.model.RetryStrategy;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The SDK's default retries, plus row writes retried after a client-side failure. The SDK does not
 * retry a write whose connection failed, because it cannot know whether it was applied; for the
 * demo and the tests, which write through it, that is safe: the replicas' writes are upserts and
 * deletes by key (applying one twice leaves the same row), and a workload write applied twice
 * changes nothing a replica compares (the crash tests' audit reads the writes the emulator
 * acknowledged). It guards against a pooled keep-alive connection that the server closed failing
 * the next request before a response: the emulator's JDK server did that once 200 connections were
 * idle (now lifted, see {@code EmulatorServer}), and any server may close a connection the client
 * still holds. A retried write the server had applied appears twice in the change stream: do not
 * write through it where the stream's records are counted.
 */
public final class IdempotentWriteRetry extends DefaultRetryStrategy {

    private static final long TIMEOUT_SECONDS = 30;
    private static final Set<String> WRITES =
            Set.of(
                    OperationNames.OP_PUT_ROW,
                    OperationNames.OP_UPDATE_ROW,
                    OperationNames.OP_DELETE_ROW,
                    OperationNames.OP_BATCH_WRITE_ROW);

    public IdempotentWriteRetry() {
        super(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }

    /** A client whose row writes are retried like reads. */
    public static SyncClient syncClient(
            String endpoint, String accessKeyId, String accessKeySecret, String instanceName) {
        ClientConfiguration config = new ClientConfiguration();
        config.setRetryStrategy(new IdempotentWriteRetry());
        return new SyncClient(endpoint, accessKeyId, accessKeySecret, instanceName, config);
    }

    /** A client of {@code emulator} whose row writes are retried like reads. */
    public static SyncClient syncClient(TablestoreEmulator emulator) {
        return syncClient(
                emulator.endpoint(),
                emulator.accessKeyId(),
                emulator.accessKeySecret(),
                emulator.instanceName());
    }

    @Override
    protected boolean shouldRetryWithOTSException(
            String action, boolean isIdempotent, String errorCode, String message, int status) {
        return super.shouldRetryWithOTSException(
                action, isIdempotent || WRITES.contains(action), errorCode, message, status);
    }

    @Override
    public boolean shouldRetry(String action, Exception ex) {
        return (ex instanceof ClientException && WRITES.contains(action))
                || super.shouldRetry(action, ex);
    }

    @Override
    public RetryStrategy clone() {
        return new IdempotentWriteRetry();
    }
}
