package io.tablestorecdc.checkpoint.meta;

import com.alicloud.openservices.tablestore.ClientException;
import com.alicloud.openservices.tablestore.model.DefaultRetryStrategy;
import com.alicloud.openservices.tablestore.model.OperationNames;
import com.alicloud.openservices.tablestore.model.RetryStrategy;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The SDK's default retry rules, with the meta table's writes treated as idempotent: every write
 * {@link SdkMetaTableClient} sends is conditional or a delete, and {@link TunnelMeta} tells its own
 * earlier write from another's when a retried condition fails. So a write whose response was lost
 * (a network error, a 5xx) is retried like a read instead of failing the batch.
 */
final class MetaRetryStrategy extends DefaultRetryStrategy {

    private static final Set<String> CONDITIONAL_WRITES =
            Set.of(
                    OperationNames.OP_PUT_ROW,
                    OperationNames.OP_UPDATE_ROW,
                    OperationNames.OP_DELETE_ROW,
                    OperationNames.OP_BATCH_WRITE_ROW);

    private final long timeoutMillis;

    MetaRetryStrategy(long timeoutMillis) {
        super(timeoutMillis, TimeUnit.MILLISECONDS);
        this.timeoutMillis = timeoutMillis;
    }

    @Override
    protected boolean shouldRetryWithOTSException(
            String action, boolean isIdempotent, String errorCode, String message, int status) {
        return super.shouldRetryWithOTSException(
                action, isIdempotent || isConditionalWrite(action), errorCode, message, status);
    }

    @Override
    public boolean shouldRetry(String action, Exception ex) {
        return (ex instanceof ClientException
                        && (isConditionalWrite(action) || isCreateTable(action)))
                || super.shouldRetry(action, ex);
    }

    /**
     * A lost CreateTable response is safe to retry: a second attempt that finds the table answers
     * OTSObjectAlreadyExist, which {@link SdkMetaTableClient#createTableIfMissing} accepts. It
     * matters in practice: a pooled keep-alive connection that the server closed fails the next
     * request before it is sent.
     */
    private static boolean isCreateTable(String action) {
        return OperationNames.OP_CREATE_TABLE.equals(action);
    }

    private static boolean isConditionalWrite(String action) {
        return CONDITIONAL_WRITES.contains(action);
    }

    @Override
    public RetryStrategy clone() {
        return new MetaRetryStrategy(timeoutMillis);
    }
}
