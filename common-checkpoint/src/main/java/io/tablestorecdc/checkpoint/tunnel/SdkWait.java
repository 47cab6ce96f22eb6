package io.tablestorecdc.checkpoint.tunnel;

import com.alicloud.openservices.tablestore.ClientConfiguration;
import com.alicloud.openservices.tablestore.ClientException;
import io.tablestorecdc.checkpoint.annotation.Internal;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Waits for an answer of a request the SDK's launcher sent, as the SDK's {@code SyncClient} waits:
 * at most the client's wait timeout, the SDK's own exception when the request failed, and the SDK's
 * words for an interrupted wait or a timeout.
 */
@Internal
public final class SdkWait {

    private SdkWait() {}

    /** The answer, or the exception {@code SyncClient} would throw instead. */
    public static <T> T answer(Future<T> answer, ClientConfiguration config) {
        try {
            return answer.get(
                    config.getSyncClientWaitFutureTimeoutInMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ClientException("The thread was interrupted: " + e.getMessage());
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new ClientException("The thread was aborted", cause);
        } catch (TimeoutException e) {
            throw new ClientException("Wait future timeout", e);
        }
    }
}
