// The claim's steps for concurrency keys, tokens and rate slots (sql/claim.ts composes CLAIM of them; each is
// a piece of readpast.Claim_<hash>'s body, sql/hot.ts). The lock order and the
// steps' numbers are those of the comment at the top of sql/claim.ts.

/**
 * A key's room by a first count (READPAST: no wait; each round counts again under the key's lock): `limit`
 * is the queue's per_key_limit, `key` the key.
 */
export const keyRoom = (queue: string, key: string, limit: string) => `(${limit} IS NULL OR ${limit} > (
      SELECT COUNT(*) FROM readpast.Tasks AS r WITH (READPAST, READCOMMITTEDLOCK)
      WHERE r.status = 'running' AND r.queue = ${queue} AND r.concurrency_key = ${key} AND r.lease_until >= @now))`;

/** A rate window's room by a first count (READPAST; each start takes its slot under lock): slots used in the window. */
export const rateRoom = (queue: string, rateKey: string, limit: string, period: string) => `(${limit} IS NULL OR ${limit} > (
      SELECT COUNT(*) FROM readpast.RateSlots AS rs WITH (READPAST, READCOMMITTEDLOCK)
      WHERE rs.queue = ${queue} AND rs.rate_key = ${rateKey} AND rs.used_at > DATEADD(SECOND, -${period}, @now)))`;

/** The window a task counts in: its key's under a per-key rate ('' for a task with no key), else the queue's (''). */
export const rateKeyOf = (perKey: string, key: string) => `CASE WHEN ${perKey} = 1 THEN COALESCE(${key}, N'') ELSE N'' END`;

/** This round's lane set aside for the rest of the claim: a key lane dropped, another lane skipped in its queue. */
export const SET_LANE_ASIDE = `IF @lane = -2
        DELETE FROM @keys WHERE queue = @queue AND concurrency_key = @key;
      ELSE
        INSERT INTO @skipped (lane, queue) SELECT @lane, @queue
        WHERE NOT EXISTS (SELECT 1 FROM @skipped AS x WHERE x.lane = @lane AND x.queue = @queue);`;

/** One to a thousand numbers (TOP bounds them): a limited queue's missing tokens, created at most 1,000 per statement. */
const NUMBERS = `(SELECT TOP (@chunk) CAST(ROW_NUMBER() OVER (ORDER BY (SELECT NULL)) AS int) AS n
                FROM (VALUES (0), (0), (0), (0), (0), (0), (0), (0), (0), (0)) AS a (x)
                CROSS JOIN (VALUES (0), (0), (0), (0), (0), (0), (0), (0), (0), (0)) AS b (x)
                CROSS JOIN (VALUES (0), (0), (0), (0), (0), (0), (0), (0), (0), (0)) AS c (x)) AS n`;

/**
 * A token is held while its grantee attempt still owns a running task with a live lease: one of @held,
 * the queue's running tasks read under the queue's lock (step 3).
 */
const HELD_BY = (c: string) => `EXISTS (SELECT 1 FROM @held AS h WHERE h.id = ${c}.task_id AND h.attempts = ${c}.attempt)`;

/** Step 2b: the key's row written (served now), then, with a per-key limit, the key's running tasks counted under it. */
export const KEY_STEP = `-- 2b. a keyed task's key: its row written (served now; a key lane's only if no other claim served it
    --     meanwhile — choose again, as for batches), held until commit: the key's grants are serialised across
    --     every process; a missing row (a task made pending again after its key's row was pruned) is inserted.
    --     Then, with a per-key limit, the key's running tasks with a live lease under that lock
    IF @ok = 1 AND @key IS NOT NULL
    BEGIN
      SET @key_stamp = DATEDIFF_BIG(MICROSECOND, '19700101', SYSUTCDATETIME());
      UPDATE readpast.ConcurrencyKeys
        SET served_at = CASE WHEN @key_stamp > served_at THEN @key_stamp ELSE served_at + 1 END
        WHERE queue = @queue AND concurrency_key = @key AND (@lane <> -2 OR served_at = @lane_served);
      IF @@ROWCOUNT = 0
      BEGIN
        SET @key_served = NULL;
        SELECT @key_served = c.served_at FROM readpast.ConcurrencyKeys AS c WITH (UPDLOCK, HOLDLOCK)
          WHERE c.queue = @queue AND c.concurrency_key = @key;
        IF @key_served IS NULL
          INSERT INTO readpast.ConcurrencyKeys (queue, concurrency_key, served_at) VALUES (@queue, @key, @key_stamp);
        ELSE
        BEGIN
          -- served by another claim since this one read it: its turn has passed
          SET @ok = 0;
          UPDATE @keys SET served_at = @key_served WHERE queue = @queue AND concurrency_key = @key;
        END;
      END;
      IF @lane = -2
        SET @stamp = @key_stamp;
    END;
    IF @ok = 1 AND @key IS NOT NULL AND @key_limit IS NOT NULL
      AND (SELECT COUNT(*) FROM readpast.Tasks AS t
           WHERE t.status = 'running' AND t.queue = @queue AND t.concurrency_key = @key AND t.lease_until >= SYSUTCDATETIME())
          >= @key_limit
    BEGIN
      SET @ok = 0;
      ${SET_LANE_ASIDE}
    END;`;

/** Step 5: a limited queue's token (Taskling's), brought in line with the limit and granted. */
export const TOKEN_STEP = `-- 5. a limited queue's token: tokens 1..limit exist (created 1,000 per statement), free ones above
    --    it go, the lowest free one (or one whose grantee lost its task) is granted
    IF @ok = 1 AND @limit IS NOT NULL
    BEGIN
      SET @made = 0;
      WHILE @made < @limit
        AND (SELECT COUNT(*) FROM readpast.ConcurrencyTokens AS c WHERE c.queue = @queue AND c.token_no <= @limit) < @limit
      BEGIN
        SET @chunk = CASE WHEN @limit - @made < 1000 THEN @limit - @made ELSE 1000 END;
        INSERT INTO readpast.ConcurrencyTokens (queue, token_no, status)
          SELECT @queue, @made + n.n, 'free' FROM ${NUMBERS}
          WHERE NOT EXISTS (SELECT 1 FROM readpast.ConcurrencyTokens AS c WHERE c.queue = @queue AND c.token_no = @made + n.n);
        SET @made = @made + @chunk;
      END;
      SET @chunk = 1000;
      WHILE @chunk = 1000
      BEGIN
        SET @chunk = 0;
        WITH doomed AS (
          SELECT TOP (1000) c.queue, c.token_no FROM readpast.ConcurrencyTokens AS c
          WHERE c.queue = @queue AND c.token_no > @limit AND (c.status = 'free' OR NOT ${HELD_BY('c')})
        )
        DELETE FROM doomed;
        SET @chunk = @@ROWCOUNT;
      END;
      SELECT TOP (1) @tok = c.token_no FROM readpast.ConcurrencyTokens AS c
        WHERE c.queue = @queue AND c.token_no <= @limit AND (c.status = 'free' OR NOT ${HELD_BY('c')})
        ORDER BY c.token_no;
      IF @tok IS NULL
      BEGIN
        -- no free token although running < limit: should not happen; leave the queue for this claim
        SET @ok = 0;
        DELETE FROM @cand WHERE queue = @queue;
      END
      ELSE
      BEGIN
        UPDATE readpast.Tasks SET token_no = @tok WHERE id = (SELECT c.id FROM @claimed AS c);
        UPDATE @claimed SET token_no = @tok;
        UPDATE c SET status = 'granted', task_id = x.id, attempt = x.attempts, worker_id = @worker_id, granted_at = @now
          FROM readpast.ConcurrencyTokens AS c CROSS JOIN @claimed AS x
          WHERE c.queue = @queue AND c.token_no = @tok;
      END;
    END;`;

/** Step 5b: a rate-limited queue's slot taken (or the window found full: the lane set aside). */
export const RATE_STEP = `-- 5b. a rate-limited queue's slot: a lowered limit's slots still in the window counted first (exactly: a
    --     locking read), then the oldest slot out of the window, skipping slots other claims are taking, else a
    --     new one while fewer than the limit exist (under UPDLOCK, HOLDLOCK on the last one: creators take turns)
    IF @ok = 1 AND @rate_limit IS NOT NULL
    BEGIN
      SET @rate_key = ${rateKeyOf('@rate_per_key', '@key')};
      SET @rate_since = DATEADD(SECOND, -@rate_period, @now);
      SET @rate_slot = NULL;
      IF EXISTS (SELECT 1 FROM readpast.RateSlots AS s
          WHERE s.queue = @queue AND s.rate_key = @rate_key AND s.slot_no > @rate_limit AND s.used_at > @rate_since)
        AND (SELECT COUNT(*) FROM readpast.RateSlots AS s WITH (READCOMMITTEDLOCK)
             WHERE s.queue = @queue AND s.rate_key = @rate_key AND s.used_at > @rate_since) >= @rate_limit
        SET @rate_slot = -1;
      IF @rate_slot IS NULL
        SELECT TOP (1) @rate_slot = s.slot_no FROM readpast.RateSlots AS s WITH (UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK)
          WHERE s.queue = @queue AND s.rate_key = @rate_key AND s.slot_no <= @rate_limit AND s.used_at <= @rate_since
          ORDER BY s.used_at;
      IF @rate_slot IS NULL
      BEGIN
        SELECT TOP (1) @rate_slot = s.slot_no FROM readpast.RateSlots AS s WITH (UPDLOCK, HOLDLOCK, ROWLOCK)
          WHERE s.queue = @queue AND s.rate_key = @rate_key
          ORDER BY s.slot_no DESC;
        SET @rate_slot = COALESCE(@rate_slot, 0) + 1;
        IF @rate_slot <= @rate_limit
          INSERT INTO readpast.RateSlots (queue, rate_key, slot_no, used_at, task_id)
            SELECT @queue, @rate_key, @rate_slot, @now, c.id FROM @claimed AS c;
        ELSE
          SET @rate_slot = -1;
      END
      ELSE IF @rate_slot > 0
        UPDATE s SET used_at = @now, task_id = c.id
          FROM readpast.RateSlots AS s CROSS JOIN @claimed AS c
          WHERE s.queue = @queue AND s.rate_key = @rate_key AND s.slot_no = @rate_slot;
      IF @rate_slot = -1
      BEGIN
        -- the window is full: the task waits (no attempt spent); its lane, key or queue is set aside
        SET @ok = 0;
        IF @rate_per_key = 0
          DELETE FROM @cand WHERE queue = @queue;
        ELSE
        BEGIN
          ${SET_LANE_ASIDE}
        END;
      END;
    END;`;
