package io.tablestorecdc.emulator.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class FirstRunWarningsTest {

    private static final String SDK_NOT_FOUND =
            "13:45:16.736 WARN LogUtil: TraceId:9\tFailed\tRetriedCount:0\t[ErrorCode]:"
                    + "OTSObjectNotExist, [Message]:Requested table does not exist";
    private static final String OURS =
            "13:45:16.738 WARN TunnelConsumer: Tunnel t1 of table cdc_t1 has no channels yet";
    private static final String SPURIOUS_SDK =
            "13:45:16.736 WARN LogUtil: TraceId:9\tFailed\tRetriedCount:0\tcom.alicloud."
                    + "openservices.tablestore.ClientException: Unexpected error: com.aliyun.ots."
                    + "thirdparty.org.apache.http.ConnectionClosedException: Connection closed";
    private static final String SPURIOUS_RETRY =
            "13:45:16.738 WARN TransientRetry: Tunnel heartbeat on tunnel 26 (client 02) failed"
                    + " with a transient error (attempt 1 of 6), retrying in 177 ms: ClientException:"
                    + " Unexpected error: com.aliyun.ots.thirdparty.org.apache.http."
                    + "ConnectionClosedException: Connection closed";

    @Test
    void countsWarningsAndErrorsOfOursAndTheSdks() {
        String error =
                "13:45:17.001 ERROR MetaTable: Could not create meta table tablestore_cdc_meta";
        assertThat(FirstRunWarnings.of(Stream.of(SDK_NOT_FOUND, OURS, error)))
                .containsExactly(SDK_NOT_FOUND, OURS, error);
    }

    @Test
    void leavesOutTheEnginesWarningsAndOtherLevels() {
        assertThat(
                        FirstRunWarnings.of(
                                Stream.of(
                                        "13:45:13.083 WARN Utils: Your hostname, vm resolves to a"
                                                + " loopback address",
                                        "13:45:13.371 WARN NativeCodeLoader: Unable to load"
                                                + " native-hadoop library",
                                        "13:45:16.900 INFO TunnelSession: Tunnel client c1"
                                                + " connected to tunnel t1")))
                .isEmpty();
    }

    @Test
    void leavesOutAConditionFailedOnlyOnARetry() {
        String retried =
                "14:47:12.405 WARN LogUtil: TraceId:cd\tFailed\tRetriedCount:1\t[ErrorCode]:"
                        + "OTSConditionCheckFail, [Message]:Condition check failed., [HttpStatus:]403";
        String firstAttempt = retried.replace("RetriedCount:1", "RetriedCount:0");
        assertThat(FirstRunWarnings.of(Stream.of(retried, firstAttempt)))
                .containsExactly(firstAttempt);
    }

    @Test
    void leavesOutTheSdksSpuriousConnectionClosedAndItsRetry() {
        assertThat(FirstRunWarnings.of(Stream.of(SPURIOUS_SDK, SPURIOUS_RETRY, OURS)))
                .containsExactly(OURS);
    }
}
