// A task token made on the server, for the T-SQL callers' procedure (readpast.ExecAsync): the store's
// 'uniqueidentifier' layout (lib/engine/tokens.ts) from the server's clock, so that its tasks' tokens, too,
// land at the end of UX_Tasks_token. CAST(binary(16) AS uniqueidentifier) takes the bytes as the type stores
// them: bytes 0–3, 4–5 and 6–7 are the first three groups of the text little-endian, 8–15 the last two as
// written. So, byte by byte:
//   0–6   random (the first two groups, and the third group's last byte: the sequence's low bits, random here);
//   7     0x80 | 4 random bits: the third group's first byte, version 8;
//   8–9   0x8000 | the 100 ns ticks within the ms (0–9999): the fourth group, the RFC variant, then the
//         sequence's high 14 bits (the Node generator counts there; here the finer clock orders a ms's tokens);
//   10–15 the Unix time in ms, big-endian: the last group, where SQL Server's comparison looks first.
// SQL Server 2016 SP1 has DATEDIFF_BIG and CRYPT_GEN_RANDOM. The variable is @new_token: a procedure's
// parameter @Token would clash with @token (variable names follow the server's collation, mostly case-blind).
export const NEW_TOKEN = `DECLARE @token_now datetime2(7) = SYSUTCDATETIME(), @token_random binary(8) = CRYPT_GEN_RANDOM(8);
  DECLARE @new_token uniqueidentifier = CAST(SUBSTRING(@token_random, 1, 7)
      + SUBSTRING(CAST(128 + CAST(SUBSTRING(@token_random, 8, 1) AS int) % 16 AS binary(4)), 4, 1)
      + SUBSTRING(CAST(32768 + DATEPART(NANOSECOND, @token_now) % 1000000 / 100 AS binary(4)), 3, 2)
      + SUBSTRING(CAST(DATEDIFF_BIG(MILLISECOND, CAST('1970-01-01' AS datetime2(7)), @token_now) AS binary(8)), 3, 6)
    AS uniqueidentifier);`;
