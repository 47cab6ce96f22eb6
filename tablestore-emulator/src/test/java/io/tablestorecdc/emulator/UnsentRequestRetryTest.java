package io.tablestorecdc.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import com.alicloud.openservices.tablestore.ClientException;
import com.alicloud.openservices.tablestore.model.OperationNames;
import com.alicloud.openservices.tablestore.model.RetryStrategy;
import com.aliyun.ots.thirdparty.org.apache.http.ConnectionClosedException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class UnsentRequestRetryTest {

    /** The SDK's default rules, as a fake: never retries, records what it was asked. */
    private static final class NeverRetry implements RetryStrategy {
        final List<String> asked = new ArrayList<>();

        @Override
        public RetryStrategy clone() {
            return new NeverRetry();
        }

        @Override
        public int getRetries() {
            return 0;
        }

        @Override
        public long nextPause(String action, Exception ex) {
            asked.add(action);
            return 0;
        }
    }

    @Test
    void aWriteFailedWhileAllocatingItsConnectionIsRetriedAFewTimes() {
        NeverRetry sdkDefault = new NeverRetry();
        UnsentRequestRetry retry = new UnsentRequestRetry(sdkDefault);
        ClientException unsent = clientException(closed("connectionAllocated"));

        for (int i = 0; i < UnsentRequestRetry.MAX_UNSENT_RETRIES; i++) {
            assertThat(retry.nextPause(OperationNames.OP_PUT_ROW, unsent)).isPositive();
        }
        assertThat(retry.getRetries()).isEqualTo(UnsentRequestRetry.MAX_UNSENT_RETRIES);
        assertThat(retry.nextPause(OperationNames.OP_PUT_ROW, unsent)).isZero();
        assertThat(sdkDefault.asked).containsExactly(OperationNames.OP_PUT_ROW);
    }

    @Test
    void aConnectionClosedAfterTheRequestWasSentIsLeftToTheDefaultRules() {
        NeverRetry sdkDefault = new NeverRetry();
        UnsentRequestRetry retry = new UnsentRequestRetry(sdkDefault);
        ClientException lostMidFlight = clientException(closed("closed"));

        assertThat(retry.nextPause(OperationNames.OP_PUT_ROW, lostMidFlight)).isZero();
        assertThat(retry.nextPause("CreateTunnel", new ClientException("timeout"))).isZero();
        assertThat(sdkDefault.asked).containsExactly(OperationNames.OP_PUT_ROW, "CreateTunnel");
    }

    @Test
    void eachOperationCountsItsOwnRetries() {
        UnsentRequestRetry retry = new UnsentRequestRetry(new NeverRetry());
        ClientException unsent = clientException(closed("connectionAllocated"));
        for (int i = 0; i < UnsentRequestRetry.MAX_UNSENT_RETRIES; i++) {
            retry.nextPause(OperationNames.OP_PUT_ROW, unsent);
        }

        RetryStrategy next = retry.clone();

        assertThat(next.getRetries()).isZero();
        assertThat(next.nextPause(OperationNames.OP_PUT_ROW, unsent)).isPositive();
    }

    /** A ConnectionClosedException raised in the HTTP client's method {@code method}. */
    private static ConnectionClosedException closed(String method) {
        ConnectionClosedException e = new ConnectionClosedException("Connection closed");
        e.setStackTrace(
                new StackTraceElement[] {
                    new StackTraceElement(
                            "com.aliyun.ots.thirdparty.org.apache.http.impl.nio.client"
                                    + ".DefaultClientExchangeHandlerImpl",
                            method,
                            null,
                            -1)
                });
        return e;
    }

    private static ClientException clientException(Throwable cause) {
        return new ClientException("Unexpected error: " + cause, cause);
    }
}
