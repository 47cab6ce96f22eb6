package io.tablestorecdc.e2e;

import com.alicloud.openservices.tablestore.ClientException;
import com.alicloud.openservices.tablestore.model.DefaultRetryStrategy;
import com.alicloud.openservices.tablestore.model.OperationNames;
import com.alicloud.openservices.tablestore.model.RetryStrategy;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The SDK's default retries, plus the demo's row writes retried after a client-side failure. The
 * SDK does not retry a write whose outcome it cannot know (the response was lost on the network, or
 * its HTTP client's keep-alive race reported an applied write as "Connection closed"; see {@code
 * AppliedOnceWrites} in the emulator module). For the demo that is safe against any endpoint: the
 * replicas' writes are upserts and deletes by key, and the workload's source table is the truth the
 * replicas are compared with, so a write applied twice changes no result. It would not be safe
 * where the change stream's records are counted.
 */
final class DemoWriteRetry extends DefaultRetryStrategy {

    private static final long TIMEOUT_SECONDS = 30;
    private static final Set<String> WRITES =
            Set.of(
                    OperationNames.OP_PUT_ROW,
                    OperationNames.OP_UPDATE_ROW,
                    OperationNames.OP_DELETE_ROW,
                    OperationNames.OP_BATCH_WRITE_ROW);

    DemoWriteRetry() {
        super(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }

    @Override
    public boolean shouldRetry(String action, Exception ex) {
        return (ex instanceof ClientException && WRITES.contains(action))
                || super.shouldRetry(action, ex);
    }

    @Override
    public RetryStrategy clone() {
        return new DemoWriteRetry();
    }
}
