package io.tablestorecdc.checkpoint.table;

import com.alicloud.openservices.tablestore.ClientConfiguration;
import com.alicloud.openservices.tablestore.ClientException;
import com.alicloud.openservices.tablestore.PartialResultFailedException;
import com.alicloud.openservices.tablestore.TableStoreCallback;
import com.alicloud.openservices.tablestore.TableStoreException;
import com.alicloud.openservices.tablestore.core.AsyncBatchGetRowCompletion;
import com.alicloud.openservices.tablestore.core.AsyncGetRangeCompletion;
import com.alicloud.openservices.tablestore.core.BatchGetRowLauncher;
import com.alicloud.openservices.tablestore.core.CallbackImpledFuture;
import com.alicloud.openservices.tablestore.core.ClientResources;
import com.alicloud.openservices.tablestore.core.OperationLauncher;
import com.alicloud.openservices.tablestore.core.ResponseContentWithMeta;
import com.alicloud.openservices.tablestore.core.TraceLogger;
import com.alicloud.openservices.tablestore.core.auth.CredentialsProvider;
import com.alicloud.openservices.tablestore.core.http.OTSUri;
import com.alicloud.openservices.tablestore.core.http.ResponseConsumer;
import com.alicloud.openservices.tablestore.core.protocol.OTSProtocolBuilder;
import com.alicloud.openservices.tablestore.core.protocol.OTSProtocolParser;
import com.alicloud.openservices.tablestore.core.protocol.OtsInternalApi;
import com.alicloud.openservices.tablestore.core.protocol.ResultParserFactory;
import com.alicloud.openservices.tablestore.core.utils.LogUtil;
import com.alicloud.openservices.tablestore.model.BatchGetRowRequest;
import com.alicloud.openservices.tablestore.model.BatchGetRowResponse;
import com.alicloud.openservices.tablestore.model.ConsumedCapacity;
import com.alicloud.openservices.tablestore.model.Error;
import com.alicloud.openservices.tablestore.model.GetRangeRequest;
import com.alicloud.openservices.tablestore.model.GetRangeResponse;
import com.alicloud.openservices.tablestore.model.OperationNames;
import com.alicloud.openservices.tablestore.model.Response;
import com.alicloud.openservices.tablestore.model.RetryStrategy;
import com.alicloud.openservices.tablestore.model.Row;
import com.aliyun.ots.thirdparty.org.apache.http.concurrent.FutureCallback;
import io.tablestorecdc.checkpoint.tunnel.PlainBufferRows;
import io.tablestorecdc.checkpoint.tunnel.SdkWait;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * GetRange and BatchGetRow as the SDK's {@code SyncClient} sends them (its request builders, HTTP
 * client, signing, retry strategy, response checks, its merging of a wide row the service returned
 * in parts, and BatchGetRow's retry of the rows that failed), with the responses' rows decoded by
 * {@link PlainBufferRows} instead of the SDK's decoder: the same rows, for much less CPU on the
 * reading side. Uses the resources of the client it is built beside, so it adds no thread and no
 * connection.
 */
final class RawTableReads {

    private final OTSUri uri;
    private final OTSUri batchUri;
    private final String instanceName;
    private final ClientResources resources;
    private final CredentialsProvider credentials;
    private final ClientConfiguration config;

    RawTableReads(
            String endpoint,
            String instanceName,
            ClientResources resources,
            CredentialsProvider credentials,
            ClientConfiguration config) {
        this.uri = new OTSUri(endpoint, OperationNames.OP_GET_RANGE);
        this.batchUri = new OTSUri(endpoint, OperationNames.OP_BATCH_GET_ROW);
        this.instanceName = instanceName;
        this.resources = resources;
        this.credentials = credentials;
        this.config = config;
    }

    /** One GetRange, as {@code SyncClient#getRange} answers it, or its exception. */
    GetRangeResponse getRange(GetRangeRequest request) {
        CallbackImpledFuture<GetRangeRequest, GetRangeResponse> result =
                new CallbackImpledFuture<>();
        send(request, result);
        return SdkWait.answer(result, config);
    }

    /**
     * One BatchGetRow, as {@code SyncClient#batchGetRow} answers it (rows that failed retried as
     * the SDK's strategy allows, a wide row read to its end), or its exception.
     */
    BatchGetRowResponse batchGetRow(BatchGetRowRequest request) {
        TraceLogger tracer = tracer();
        RetryStrategy retry = config.getRetryStrategy().clone();
        BatchLauncher launcher = new BatchLauncher(request, tracer, retry);
        AsyncBatchGetRowCompletion completion =
                new AsyncBatchGetRowCompletion(
                        launcher,
                        request,
                        tracer,
                        resources.getCallbackExecutor(),
                        retry,
                        resources.getRetryExecutor());
        CallbackImpledFuture<BatchGetRowRequest, BatchGetRowResponse> result =
                new CallbackImpledFuture<>();
        completion.watchBy(result);
        launcher.fire(request, completion);
        return SdkWait.answer(result, config);
    }

    /**
     * One GetRange, answered on the client's callback thread: the response, or the exception {@link
     * #getRange} would throw (the SDK's own, with its retries done, or its wait timeout).
     */
    CompletableFuture<GetRangeResponse> getRangeAsync(GetRangeRequest request) {
        CompletableFuture<GetRangeResponse> result = new CompletableFuture<>();
        send(
                request,
                new TableStoreCallback<>() {
                    @Override
                    public void onCompleted(GetRangeRequest sent, GetRangeResponse response) {
                        result.complete(response);
                    }

                    @Override
                    public void onFailed(GetRangeRequest sent, Exception e) {
                        result.completeExceptionally(e);
                    }
                });
        CompletableFuture<GetRangeResponse> answer = new CompletableFuture<>();
        result.orTimeout(config.getSyncClientWaitFutureTimeoutInMillis(), TimeUnit.MILLISECONDS)
                .whenComplete(
                        (response, e) -> {
                            if (e == null) {
                                answer.complete(response);
                            } else if (e instanceof TimeoutException) {
                                answer.completeExceptionally(
                                        new ClientException("Wait future timeout", e));
                            } else {
                                answer.completeExceptionally(e);
                            }
                        });
        return answer;
    }

    private void send(
            GetRangeRequest request, TableStoreCallback<GetRangeRequest, GetRangeResponse> done) {
        TraceLogger tracer = tracer();
        RetryStrategy retry = config.getRetryStrategy().clone();
        Launcher launcher = new Launcher(request, tracer, retry);
        AsyncGetRangeCompletion completion =
                new AsyncGetRangeCompletion(
                        launcher,
                        request,
                        tracer,
                        resources.getCallbackExecutor(),
                        retry,
                        resources.getRetryExecutor());
        completion.watchBy(done);
        launcher.fire(request, completion);
    }

    private final class Launcher extends OperationLauncher<GetRangeRequest, GetRangeResponse> {
        private final TraceLogger tracer;
        private final RetryStrategy retry;

        Launcher(GetRangeRequest request, TraceLogger tracer, RetryStrategy retry) {
            super(instanceName, resources.getHttpClient(), credentials, config, request);
            this.tracer = tracer;
            this.retry = retry;
        }

        @Override
        public void fire(GetRangeRequest request, FutureCallback<GetRangeResponse> callback) {
            asyncInvokePost(
                    uri,
                    null,
                    OTSProtocolBuilder.buildGetRangeRequest(request),
                    tracer,
                    new RowsConsumer(tracer, retry),
                    callback);
        }
    }

    /** The SDK's response handling, with the rows decoded by {@link PlainBufferRows}. */
    private static final class RowsConsumer extends ResponseConsumer<GetRangeResponse> {

        RowsConsumer(TraceLogger tracer, RetryStrategy retry) {
            super(
                    ResultParserFactory.createFactory()
                            .createProtocolBufferResultParser(
                                    OtsInternalApi.GetRangeResponse.getDefaultInstance(),
                                    tracer.getTraceId()),
                    tracer,
                    retry,
                    null);
        }

        @Override
        protected GetRangeResponse parseResult() throws Exception {
            var content = getResponseContentWithMeta();
            OtsInternalApi.GetRangeResponse message =
                    (OtsInternalApi.GetRangeResponse) content.getMessage();
            GetRangeResponse response =
                    new GetRangeResponse(
                            content.getMeta(),
                            new ConsumedCapacity(
                                    OTSProtocolParser.parseCapacityUnit(
                                            message.getConsumed().getCapacityUnit())));
            response.setBodyBytes(message.getSerializedSize());
            PlainBufferRows rows = new PlainBufferRows();
            response.setNextStartPrimaryKey(
                    message.hasNextStartPrimaryKey()
                            ? rows.readKey(message.getNextStartPrimaryKey())
                            : null);
            response.setRows(
                    message.getRows().isEmpty() ? new ArrayList<>() : rows.read(message.getRows()));
            if (message.hasNextToken()) {
                response.setNextToken(message.getNextToken().toByteArray());
            }
            return response;
        }
    }

    private TraceLogger tracer() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        return new TraceLogger(
                new UUID(random.nextLong(), random.nextLong()).toString(),
                config.getTimeThresholdOfTraceLogger());
    }

    /** The SDK's BatchGetRow launcher (its retry request of the failed rows), with our consumer. */
    private final class BatchLauncher extends BatchGetRowLauncher {
        private final TraceLogger tracer;
        private final RetryStrategy retry;

        BatchLauncher(BatchGetRowRequest request, TraceLogger tracer, RetryStrategy retry) {
            super(
                    batchUri,
                    tracer,
                    retry,
                    instanceName,
                    resources.getHttpClient(),
                    credentials,
                    config,
                    request);
            this.tracer = tracer;
            this.retry = retry;
        }

        @Override
        public void fire(BatchGetRowRequest request, FutureCallback<BatchGetRowResponse> callback) {
            LogUtil.logBeforeExecution(tracer, retry);
            asyncInvokePost(
                    batchUri,
                    null,
                    OTSProtocolBuilder.buildBatchGetRowRequest(request.getCriteriasByTable()),
                    tracer,
                    new BatchRowsConsumer(tracer, retry, lastResult),
                    callback);
        }
    }

    /**
     * The SDK's BatchGetRow response handling, with the rows decoded by {@link PlainBufferRows}: a
     * retry's answer is merged into the answer before it by row index, and rows that still failed
     * are thrown as the SDK throws them, for its retry strategy to decide on.
     */
    static final class BatchRowsConsumer extends ResponseConsumer<BatchGetRowResponse> {

        BatchRowsConsumer(TraceLogger tracer, RetryStrategy retry, BatchGetRowResponse before) {
            super(
                    ResultParserFactory.createFactory()
                            .createProtocolBufferResultParser(
                                    OtsInternalApi.BatchGetRowResponse.getDefaultInstance(),
                                    tracer.getTraceId()),
                    tracer,
                    retry,
                    before);
        }

        @Override
        protected BatchGetRowResponse parseResult() throws Exception {
            ResponseContentWithMeta content = getResponseContentWithMeta();
            OtsInternalApi.BatchGetRowResponse message =
                    (OtsInternalApi.BatchGetRowResponse) content.getMessage();
            BatchGetRowResponse result = new BatchGetRowResponse(content.getMeta());
            PlainBufferRows rows = new PlainBufferRows();
            for (OtsInternalApi.TableInBatchGetRowResponse table : message.getTablesList()) {
                List<OtsInternalApi.RowInBatchGetRowResponse> answers = table.getRowsList();
                for (int i = 0; i < answers.size(); i++) {
                    result.addResult(rowResult(rows, table.getTableName(), answers.get(i), i));
                }
            }
            if (lastResult != null) {
                result = merge(lastResult, result, traceLogger.getTraceId());
            }
            List<BatchGetRowResponse.RowResult> failed = result.getFailedRows();
            if (failed.isEmpty()) {
                return result;
            }
            PartialResultFailedException partial =
                    new PartialResultFailedException(null, result.getRequestId(), result);
            for (BatchGetRowResponse.RowResult row : failed) {
                TableStoreException e =
                        new TableStoreException(
                                row.getError().getMessage(),
                                null,
                                row.getError().getCode(),
                                result.getRequestId(),
                                0);
                partial.addError(e);
                LogUtil.logOnFailed(traceLogger, retry, e, result.getRequestId());
            }
            throw partial;
        }

        /** One row's answer, as the SDK's {@code OTSProtocolParser} reads it. */
        private static BatchGetRowResponse.RowResult rowResult(
                PlainBufferRows rows,
                String tableName,
                OtsInternalApi.RowInBatchGetRowResponse answer,
                int index) {
            if (!answer.getIsOk()) {
                return new BatchGetRowResponse.RowResult(
                        tableName,
                        new Error(answer.getError().getCode(), answer.getError().getMessage()),
                        index);
            }
            Row row = null;
            if (!answer.getRow().isEmpty()) {
                List<Row> read;
                try {
                    read = rows.read(answer.getRow());
                } catch (ClientException e) {
                    throw new ClientException("Failed to parse row data.", e);
                }
                if (read.size() != 1) {
                    throw new ClientException(
                            "Failed to parse row data.",
                            new IllegalStateException(
                                    "Expect only returns one row. Row count: " + read.size()));
                }
                row = read.get(0);
            }
            ConsumedCapacity capacity =
                    new ConsumedCapacity(
                            OTSProtocolParser.parseCapacityUnit(
                                    answer.getConsumed().getCapacityUnit()));
            return answer.hasNextToken()
                    ? new BatchGetRowResponse.RowResult(
                            tableName, row, capacity, index, answer.getNextToken().toByteArray())
                    : new BatchGetRowResponse.RowResult(tableName, row, capacity, index);
        }

        /**
         * The answer before a retry, with each row that failed in it replaced by the retry's answer
         * for that row (the retry asked for the failed rows only, in order).
         */
        static BatchGetRowResponse merge(
                BatchGetRowResponse before, BatchGetRowResponse retried, String traceId) {
            Response meta = new Response(retried.getRequestId());
            meta.setTraceId(traceId);
            BatchGetRowResponse merged = new BatchGetRowResponse(meta);
            Map<String, List<BatchGetRowResponse.RowResult>> again = retried.getTableToRowsResult();
            for (Map.Entry<String, List<BatchGetRowResponse.RowResult>> table :
                    before.getTableToRowsResult().entrySet()) {
                String tableName = table.getKey();
                List<BatchGetRowResponse.RowResult> answers = again.get(tableName);
                int next = 0;
                for (BatchGetRowResponse.RowResult earlier : table.getValue()) {
                    if (earlier.isSucceed()) {
                        merged.addResult(earlier);
                        continue;
                    }
                    BatchGetRowResponse.RowResult now = answers.get(next++);
                    merged.addResult(
                            now.isSucceed()
                                    ? new BatchGetRowResponse.RowResult(
                                            tableName,
                                            now.getRow(),
                                            now.getConsumedCapacity(),
                                            earlier.getIndex())
                                    : new BatchGetRowResponse.RowResult(
                                            tableName, now.getError(), earlier.getIndex()));
                }
            }
            return merged;
        }
    }
}
