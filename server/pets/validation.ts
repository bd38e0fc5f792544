import Joi from 'joi';
import { contract } from '../contract.ts';

/** Longest accepted `name`, in UTF-16 code units (the specification sets none). */
export const NAME_MAX_LENGTH = 100;

export const newPetSchema = Joi.object({
  name: Joi.string()
    .min(1)
    .max(NAME_MAX_LENGTH)
    .pattern(/\S/, { name: 'non-blank' })
    .required()
    .messages({ 'string.pattern.name': '"name" must contain a non-blank character' }),
  categoryId: Joi.number().strict().integer().min(1).max(Number.MAX_SAFE_INTEGER).required(),
  status: Joi.string()
    .valid(...contract.petStatuses)
    .strict(),
})
  .required()
  .label('request body');

export const listQuerySchema = Joi.object({
  limit: Joi.number().integer().min(contract.limit.minimum).max(contract.limit.maximum).default(contract.limit.default),
  status: Joi.string().valid(...contract.petStatuses),
  cursor: Joi.string().max(64),
});

export const petIdParamsSchema = Joi.object({
  petId: Joi.string()
    .pattern(/^-?[0-9]+$/, { name: 'integer' })
    .required()
    .messages({ 'string.pattern.name': '"petId" must be an integer' }),
});
