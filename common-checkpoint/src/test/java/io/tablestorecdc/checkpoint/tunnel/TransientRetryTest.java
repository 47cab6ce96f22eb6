package io.tablestorecdc.checkpoint.tunnel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.alicloud.openservices.tablestore.ClientException;
import com.alicloud.openservices.tablestore.TableStoreException;
import io.tablestorecdc.checkpoint.model.TablestoreCredentials;
import io.tablestorecdc.checkpoint.tunnel.TunnelException.Kind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TransientRetryTest {

    private static final TunnelRetryPolicy POLICY =
            new TunnelRetryPolicy(4, Duration.ofMillis(100), Duration.ofMillis(250));

    private final List<Duration> sleeps = new ArrayList<>();
    private final TunnelMetrics metrics = new TunnelMetrics();
    private final TransientRetry retry =
            new TransientRetry(POLICY, metrics, SecretRedactor.none(), sleeps::add, () -> 1.0);

    private static TableStoreException server(String code, int httpStatus) {
        return new TableStoreException("server says " + code, null, code, "req-42", httpStatus);
    }

    /** A call that fails with the given errors in turn, then returns "ok". */
    private static Supplier<String> failingThen(AtomicInteger calls, RuntimeException... errors) {
        return () -> {
            int n = calls.getAndIncrement();
            if (n < errors.length) {
                throw errors[n];
            }
            return "ok";
        };
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "OTSServerBusy",
                "OTSTunnelServerUnavailable",
                "OTSTimeout",
                "OTSInternalServerError",
                "OTSServerUnavailable"
            })
    void transientServerCodesAreRetriedWithGrowingBackoff(String code) {
        AtomicInteger calls = new AtomicInteger();

        String result =
                retry.call(
                        "heartbeat",
                        "tunnel t",
                        failingThen(
                                calls, server(code, 503), server(code, 503), server(code, 503)));

        assertThat(result).isEqualTo("ok");
        assertThat(calls).hasValue(4);
        assertThat(sleeps)
                .containsExactly(
                        Duration.ofMillis(100), Duration.ofMillis(200), Duration.ofMillis(250));
        assertThat(metrics.retries()).isEqualTo(3);
        assertThat(metrics.failedCalls()).isZero();
    }

    @Test
    void anyHttp5xxAndNetworkErrorsAreRetried() {
        AtomicInteger calls = new AtomicInteger();

        String result =
                retry.call(
                        "readRecords",
                        "channel c",
                        failingThen(
                                calls,
                                server("OTSSomethingNew", 502),
                                new ClientException("connection reset")));

        assertThat(result).isEqualTo("ok");
        assertThat(calls).hasValue(3);
    }

    @Test
    void persistentTransientErrorsEndInRetriesExhaustedWithTheLastError() {
        AtomicInteger calls = new AtomicInteger();
        RuntimeException busy = server("OTSServerBusy", 503);

        assertThatThrownBy(
                        () ->
                                retry.call(
                                        "readRecords",
                                        "channel c1 of tunnel t",
                                        failingThen(calls, busy, busy, busy, busy, busy)))
                .isInstanceOfSatisfying(
                        TunnelException.class,
                        e -> {
                            assertThat(e.kind()).isEqualTo(Kind.RETRIES_EXHAUSTED);
                            assertThat(e.errorCode()).contains("OTSServerBusy");
                            assertThat(e.getCause()).isSameAs(busy);
                        })
                .hasMessageContaining("readRecords on channel c1 of tunnel t")
                .hasMessageContaining("after 4 attempts")
                .hasMessageContaining("req-42")
                .hasMessageContaining("check the endpoint");
        assertThat(calls).hasValue(4);
        assertThat(metrics.retries()).isEqualTo(3);
        assertThat(metrics.failedCalls()).isEqualTo(1);
    }

    @Test
    void anExpiredTunnelSurfacesAtOnceWithWhatToDo() {
        AtomicInteger calls = new AtomicInteger();

        assertThatThrownBy(
                        () ->
                                retry.call(
                                        "heartbeat",
                                        "tunnel t",
                                        failingThen(calls, server("OTSTunnelExpired", 400))))
                .isInstanceOfSatisfying(
                        TunnelException.class,
                        e -> {
                            assertThat(e.kind()).isEqualTo(Kind.EXPIRED);
                            assertThat(e.stopsClient()).isTrue();
                        })
                .hasMessageContaining("past the table's stream retention")
                .hasMessageContaining("Create a new tunnel");
        assertThat(calls).hasValue(1);
        assertThat(sleeps).isEmpty();
    }

    @Test
    void anInvalidParameterSurfacesAtOnce() {
        AtomicInteger calls = new AtomicInteger();

        assertThatThrownBy(
                        () ->
                                retry.call(
                                        "connect",
                                        "tunnel t",
                                        failingThen(calls, server("OTSParameterInvalid", 400))))
                .isInstanceOfSatisfying(
                        TunnelException.class, e -> assertThat(e.kind()).isEqualTo(Kind.INVALID))
                .hasMessageContaining("Check the table and tunnel names");
        assertThat(calls).hasValue(1);
    }

    @Test
    void otherServerErrorsAreClassifiedAndNotRetried() {
        assertThat(kindOf(server("OTSObjectNotExist", 404))).isEqualTo(Kind.NOT_FOUND);
        assertThat(kindOf(server("OTSTunnelExist", 409))).isEqualTo(Kind.ALREADY_EXISTS);
        assertThat(kindOf(server("OTSAuthFailed", 403))).isEqualTo(Kind.ACCESS_DENIED);
        assertThat(kindOf(server("OTSSequenceNumberNotMatch", 400)))
                .isEqualTo(Kind.CHECKPOINT_CONFLICT);
        assertThat(kindOf(server("OTSResourceGone", 410))).isEqualTo(Kind.LOST_OWNERSHIP);
        assertThat(kindOf(server("OTSQuotaExhausted", 403))).isEqualTo(Kind.REJECTED);
        assertThat(sleeps).isEmpty();
    }

    private Kind kindOf(RuntimeException error) {
        try {
            retry.call("checkpoint", "channel c", failingThen(new AtomicInteger(), error));
        } catch (TunnelException e) {
            return e.kind();
        }
        throw new AssertionError("expected a failure");
    }

    @Test
    void anInterruptTheSdkTurnedIntoAClientExceptionIsNotRetriedAndTheFlagIsRestored() {
        AtomicInteger calls = new AtomicInteger();
        try {
            assertThatThrownBy(
                            () ->
                                    retry.call(
                                            "readRecords",
                                            "channel c",
                                            failingThen(
                                                    calls,
                                                    new ClientException(
                                                            "The thread was interrupted: null"))))
                    .isInstanceOfSatisfying(
                            TunnelException.class,
                            e -> assertThat(e.kind()).isEqualTo(Kind.INTERRUPTED));
            assertThat(calls).hasValue(1);
            assertThat(sleeps).isEmpty();
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void anInterruptWhileWaitingEndsTheCallAndKeepsTheInterruptFlag() {
        TransientRetry interrupted =
                new TransientRetry(
                        POLICY,
                        metrics,
                        SecretRedactor.none(),
                        d -> {
                            throw new InterruptedException();
                        },
                        () -> 0.0);
        try {
            assertThatThrownBy(
                            () ->
                                    interrupted.call(
                                            "heartbeat",
                                            "tunnel t",
                                            failingThen(
                                                    new AtomicInteger(),
                                                    server("OTSServerBusy", 503))))
                    .isInstanceOfSatisfying(
                            TunnelException.class,
                            e -> assertThat(e.kind()).isEqualTo(Kind.INTERRUPTED));
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void secretsInAnSdkErrorAreRedactedInTheMessageAndTheCause() {
        String secret = "SECRET-abc123";
        String sts = "STS-token-xyz789";
        TransientRetry redacting =
                new TransientRetry(
                        TunnelRetryPolicy.NONE,
                        metrics,
                        SecretRedactor.of(TablestoreCredentials.of("LTAIid", secret, sts)),
                        sleeps::add,
                        () -> 0.0);
        RuntimeException leaky =
                new ClientException(
                        "signing failed for " + secret,
                        new IllegalStateException("token " + sts + " rejected"));

        assertThatThrownBy(
                        () ->
                                redacting.call(
                                        "connect",
                                        "tunnel t",
                                        failingThen(new AtomicInteger(), leaky)))
                .isInstanceOfSatisfying(
                        TunnelException.class,
                        e -> {
                            assertThat(e.getMessage())
                                    .doesNotContain(secret)
                                    .doesNotContain(sts)
                                    .contains("******");
                            for (Throwable t = e.getCause(); t != null; t = t.getCause()) {
                                assertThat(String.valueOf(t.getMessage()))
                                        .doesNotContain(secret)
                                        .doesNotContain(sts);
                                assertThat(t.toString()).doesNotContain(secret).doesNotContain(sts);
                            }
                            assertThat(e.getCause()).isNotNull();
                        });
    }

    @Test
    void backoffDoublesUpToTheCapAndJitterScalesItDownToHalf() {
        TunnelRetryPolicy policy =
                new TunnelRetryPolicy(10, Duration.ofMillis(100), Duration.ofSeconds(1));

        assertThat(policy.backoff(1, 1.0)).isEqualTo(Duration.ofMillis(100));
        assertThat(policy.backoff(3, 1.0)).isEqualTo(Duration.ofMillis(400));
        assertThat(policy.backoff(8, 1.0)).isEqualTo(Duration.ofSeconds(1));
        assertThat(policy.backoff(60, 1.0)).isEqualTo(Duration.ofSeconds(1));
        assertThat(policy.backoff(3, 0.0)).isEqualTo(Duration.ofMillis(200));
    }

    @Test
    void policyRejectsNonsense() {
        assertThatThrownBy(() -> new TunnelRetryPolicy(0, Duration.ZERO, Duration.ZERO))
                .hasMessageContaining("at least 1");
        assertThatThrownBy(
                        () ->
                                new TunnelRetryPolicy(
                                        3, Duration.ofSeconds(2), Duration.ofSeconds(1)))
                .hasMessageContaining("initialBackoff <= maxBackoff");
    }
}
